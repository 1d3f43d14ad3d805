import type { CsvFileName, CsvProblem, CsvRecord } from "@retail/ingest"
import { Stream } from "effect"
import { decodePartitionRow } from "./CsvPartitionRow.ts"
import type { CsvPartitions } from "./CsvPartitions.ts"
import type { CsvFileHeader } from "./CsvPartSplitter.ts"
import { failedItem, type LoadItem } from "./LoadItem.ts"

export type CsvFileHeaders = Readonly<Record<CsvFileName, CsvFileHeader>>

type ChildFile = Exclude<CsvFileName, "productsCsv">

/** The child rows of one productCode, by file. */
interface Children {
  readonly hierarchiesCsv: Array<CsvRecord>
  readonly barcodesCsv: Array<CsvRecord>
  readonly attributesCsv: Array<CsvRecord>
}

/** Product field filled by each child file. */
const LIST_OF: Readonly<Record<ChildFile, "hierarchies" | "barcodes" | "lstAttributes">> = {
  hierarchiesCsv: "hierarchies",
  barcodesCsv: "barcodes",
  attributesCsv: "lstAttributes"
}
const CHILD_FILES: ReadonlyArray<ChildFile> = ["hierarchiesCsv", "barcodesCsv", "attributesCsv"]
const FILE_OF_LIST: Readonly<Record<string, ChildFile>> = { hierarchies: "hierarchiesCsv", barcodes: "barcodesCsv", lstAttributes: "attributesCsv" }
const LISTED_PROBLEMS = 10
const LISTED_LINES = 5

const describeProblem = (p: CsvProblem): string => `${p.file} line ${p.line}: ${p.column === undefined ? "" : `${p.column}: `}${p.reason}`

const describeProblems = (problems: ReadonlyArray<CsvProblem>): string => {
  const listed = problems.slice(0, LISTED_PROBLEMS).map(describeProblem).join("; ")
  return problems.length > LISTED_PROBLEMS ? `${listed}; and ${problems.length - LISTED_PROBLEMS} more problems` : listed
}

const linesOf = (file: CsvFileName, records: ReadonlyArray<CsvRecord>): string => {
  const lines = records.slice(0, LISTED_LINES).map((r) => r.line).join(", ")
  const more = records.length > LISTED_LINES ? ` and ${records.length - LISTED_LINES} more` : ""
  return `${file} line${records.length > 1 ? "s" : ""} ${lines}${more}`
}

const textOf = (record: CsvRecord, field: string): string => {
  const value = record.values[field]
  return typeof value === "string" ? value : ""
}

/** Appends where a failed product came from: its products.csv line and the child rows its reasons point at. */
const locator = (product: CsvRecord, children: Children | undefined) => (error: string): string => {
  const places = [`productsCsv line ${product.line}`]
  if (children !== undefined) {
    for (const match of error.matchAll(/\b(hierarchies|barcodes|lstAttributes)\[(\d+)\]/g)) {
      const file = FILE_OF_LIST[match[1] ?? ""]
      const record = file === undefined ? undefined : children[file][Number(match[2])]
      const place = file === undefined || record === undefined ? undefined : `${file} line ${record.line}`
      if (place !== undefined && !places.includes(place)) places.push(place)
    }
  }
  return `${error} (${places.join(", ")})`
}

/**
 * Joins the rows of one partition: every child row under its productCode, then each product row
 * (in file order) with its children, lazily. Yields one item per product row, one failure per child row
 * without a productCode and one per productCode that has child rows but no product row.
 */
export function* joinPartition(text: string, headers: CsvFileHeaders): Generator<LoadItem> {
  const products: Array<CsvRecord> = []
  const childrenByCode = new Map<string, Children>()
  for (const line of text.split("\n")) {
    if (line.length === 0) continue
    const decoded = decodePartitionRow(line)
    if (decoded === undefined) continue
    const { delimiter, header } = headers[decoded.file]
    const record = header.map(decoded.row, delimiter)
    if (record.file === "productsCsv") {
      products.push(record)
      continue
    }
    const file: ChildFile = record.file
    const code = textOf(record, "productCode")
    if (code === "") {
      yield failedItem("", describeProblems([{ file, line: record.line, column: "productCode", reason: "is required to join the row to its product" }, ...record.problems]))
      continue
    }
    let children = childrenByCode.get(code)
    if (children === undefined) {
      children = { hierarchiesCsv: [], barcodesCsv: [], attributesCsv: [] }
      childrenByCode.set(code, children)
    }
    children[file].push(record)
  }

  const firstLine = new Map<string, number>()
  for (const product of products) {
    const code = textOf(product, "productCode")
    const sku = textOf(product, "skuCode")
    const first = code === "" ? undefined : firstLine.get(code)
    if (first !== undefined) {
      yield failedItem(sku, `productCode: ${code} already appears at productsCsv line ${first}; the first occurrence wins (productsCsv line ${product.line})`)
      continue
    }
    if (code !== "") firstLine.set(code, product.line)
    const children = childrenByCode.get(code)
    childrenByCode.delete(code)
    const problems = children === undefined
      ? product.problems
      : [...product.problems, ...CHILD_FILES.flatMap((file) => children[file].flatMap((r) => r.problems))]
    if (problems.length > 0) {
      yield failedItem(sku, describeProblems(problems))
      continue
    }
    const value: Record<string, unknown> = { ...product.values }
    for (const file of CHILD_FILES) value[LIST_OF[file]] = children === undefined ? [] : children[file].map((r) => r.values)
    yield { _tag: "Product", index: product.line, value, locate: locator(product, children) }
  }

  for (const [code, children] of childrenByCode) {
    const referenced = CHILD_FILES.filter((file) => children[file].length > 0).map((file) => linesOf(file, children[file])).join("; ")
    yield failedItem(code, `productCode: ${code} has child rows but no row in productsCsv (${referenced})`)
  }
}

/** Items handed on at a time: a few batches, so that validated JSON does not pile up for a whole partition. */
const ITEMS_PER_CHUNK = 500

/** Every item of the load, partition after partition; memory: one partition's rows at a time. */
export const joinedItems = (partitions: Pick<CsvPartitions, "count" | "read">, headers: CsvFileHeaders) =>
  Stream.range(0, partitions.count - 1).pipe(
    Stream.mapEffect((partition) => partitions.read(partition)),
    Stream.flatMap((text) => Stream.fromIteratorSucceed(joinPartition(text, headers), ITEMS_PER_CHUNK))
  )

