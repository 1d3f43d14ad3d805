import type { CsvFileName, CsvProblem, CsvRecord, CsvRow, CsvValue } from "@retail/ingest"
import { Stream } from "effect"
import { decodePartitionRow, fieldOfPartitionRow, fileOfPartitionRow, lineOfPartitionRow } from "./CsvPartitionRow.ts"
import type { CsvPartitions } from "./CsvPartitions.ts"
import type { CsvProductJson } from "./CsvProductJson.ts"
import type { CsvFileHeader } from "./CsvPartSplitter.ts"
import { failedItem, type LoadItem } from "./LoadItem.ts"

export type CsvFileHeaders = Readonly<Record<CsvFileName, CsvFileHeader>>

type ChildFile = Exclude<CsvFileName, "productsCsv">

/** The child rows of one productCode by file, still encoded (partition lines): decoded only when their product is built. */
interface EncodedChildren {
  readonly hierarchiesCsv: Array<string>
  readonly barcodesCsv: Array<string>
  readonly attributesCsv: Array<string>
}

/** The decoded child rows of one product, by file. */
type ChildRows = Readonly<Record<ChildFile, ReadonlyArray<CsvRow>>>

/** Product field filled by each child file. */
const LIST_OF: Readonly<Record<ChildFile, "hierarchies" | "barcodes" | "lstAttributes">> = {
  hierarchiesCsv: "hierarchies",
  barcodesCsv: "barcodes",
  attributesCsv: "lstAttributes"
}
const CHILD_FILES: ReadonlyArray<ChildFile> = ["hierarchiesCsv", "barcodesCsv", "attributesCsv"]
const NO_ROWS: ReadonlyArray<CsvRow> = []
const NO_CHILDREN: EncodedChildren = { hierarchiesCsv: [], barcodesCsv: [], attributesCsv: [] }
const FILE_OF_LIST: Readonly<Record<string, ChildFile>> = { hierarchies: "hierarchiesCsv", barcodes: "barcodesCsv", lstAttributes: "attributesCsv" }
const LISTED_PROBLEMS = 10
const LISTED_LINES = 5

const describeProblem = (p: CsvProblem): string => `${p.file} line ${p.line}: ${p.column === undefined ? "" : `${p.column}: `}${p.reason}`

const describeProblems = (problems: ReadonlyArray<CsvProblem>): string => {
  const listed = problems.slice(0, LISTED_PROBLEMS).map(describeProblem).join("; ")
  return problems.length > LISTED_PROBLEMS ? `${listed}; and ${problems.length - LISTED_PROBLEMS} more problems` : listed
}

const linesOf = (file: CsvFileName, encoded: ReadonlyArray<string>): string => {
  const lines = encoded.slice(0, LISTED_LINES).map(lineOfPartitionRow).join(", ")
  const more = encoded.length > LISTED_LINES ? ` and ${encoded.length - LISTED_LINES} more` : ""
  return `${file} line${encoded.length > 1 ? "s" : ""} ${lines}${more}`
}

/** Appends where a failed product came from: its products.csv line and the child rows its reasons point at. */
const locator = (productLine: number, children: ChildRows) => (error: string): string => {
  const places = [`productsCsv line ${productLine}`]
  for (const match of error.matchAll(/\b(hierarchies|barcodes|lstAttributes)\[(\d+)\]/g)) {
    const file = FILE_OF_LIST[match[1] ?? ""]
    const row = file === undefined ? undefined : children[file][Number(match[2])]
    const place = file === undefined || row === undefined ? undefined : `${file} line ${row.line}`
    if (place !== undefined && !places.includes(place)) places.push(place)
  }
  return `${error} (${places.join(", ")})`
}

/** A product `CsvProductJson` validated and has written from its cells (not ended yet): only the load's duplicate rule is left to apply. */
export interface EncodedProduct {
  readonly _tag: "Encoded"
  readonly index: number
  readonly productCode: string
  readonly skuCode: string
  readonly locate: (error: string) => string
}

/**
 * Joins the rows of one partition: every child row under its productCode, then each product row
 * (in file order) with its children, lazily. Yields one item per product row, one failure per child row
 * without a productCode and one per productCode that has child rows but no product row.
 *
 * Rows stay encoded (one string each) while the partition is grouped; a product's rows are decoded and
 * typed straight into the product value when it is its turn, so they are short-lived garbage. Only a
 * product with a problem is typed again with `CsvHeader.map`, for the problems in file and column order.
 */
export function* joinPartition(text: string, headers: CsvFileHeaders): Generator<LoadItem> {
  for (const item of joinPartitionEncoding(text, headers, undefined)) {
    if (item._tag !== "Encoded") yield item
  }
}

/**
 * `joinPartition`, but a product that `encode` validates and writes straight from its cells is yielded
 * as an `EncodedProduct` (its JSON written, to be ended or dropped before the next item is asked for)
 * instead of a value to validate; the others as `joinPartition` yields them.
 */
export function* joinPartitionEncoding(
  text: string,
  headers: CsvFileHeaders,
  encode: CsvProductJson | undefined
): Generator<LoadItem | EncodedProduct> {
  const decode = (encoded: string, file: CsvFileName): CsvRow | undefined => decodePartitionRow(encoded, headers[file].delimiter)?.row
  const record = (file: CsvFileName, row: CsvRow): CsvRecord => headers[file].header.map(row, headers[file].delimiter)
  const valuesOf = (file: CsvFileName, row: CsvRow): Record<string, CsvValue> | undefined =>
    row.fault === undefined ? headers[file].header.values(row.fields, headers[file].delimiter) : undefined
  const listOf = (file: ChildFile, rows: ReadonlyArray<CsvRow>): Array<Record<string, CsvValue>> | undefined => {
    const list: Array<Record<string, CsvValue>> = []
    for (const row of rows) {
      const values = valuesOf(file, row)
      if (values === undefined) return undefined
      list.push(values)
    }
    return list
  }
  /** The product to validate, undefined when one of its rows has a problem. */
  const productValue = (product: CsvRow, children: ChildRows): Record<string, unknown> | undefined => {
    const value: Record<string, unknown> | undefined = valuesOf("productsCsv", product)
    if (value === undefined) return undefined
    for (const file of CHILD_FILES) {
      const list = listOf(file, children[file])
      if (list === undefined) return undefined
      value[LIST_OF[file]] = list
    }
    return value
  }
  const codeAt = {
    productsCsv: headers.productsCsv.header.positionOf("productCode"),
    hierarchiesCsv: headers.hierarchiesCsv.header.positionOf("productCode"),
    barcodesCsv: headers.barcodesCsv.header.positionOf("productCode"),
    attributesCsv: headers.attributesCsv.header.positionOf("productCode")
  }
  const skuAt = headers.productsCsv.header.positionOf("skuCode")

  const products: Array<string> = []
  const childrenByCode = new Map<string, EncodedChildren>()
  for (let start = 0; start < text.length;) {
    const next = text.indexOf("\n", start)
    const end = next === -1 ? text.length : next
    const encoded = text.slice(start, end)
    start = end + 1
    const file = fileOfPartitionRow(encoded)
    if (file === undefined) continue
    if (file === "productsCsv") {
      products.push(encoded)
      continue
    }
    const code = fieldOfPartitionRow(encoded, codeAt[file], headers[file].delimiter)
    if (code === "") {
      const row = decode(encoded, file)
      if (row === undefined) continue
      const problem: CsvProblem = { file, line: row.line, column: "productCode", reason: "is required to join the row to its product" }
      yield failedItem("", describeProblems([problem, ...record(file, row).problems]))
      continue
    }
    let children = childrenByCode.get(code)
    if (children === undefined) {
      children = { hierarchiesCsv: [], barcodesCsv: [], attributesCsv: [] }
      childrenByCode.set(code, children)
    }
    children[file].push(encoded)
  }

  const decodedChildren = (encodedChildren: EncodedChildren | undefined): ChildRows => {
    const rowsOf = (file: ChildFile): ReadonlyArray<CsvRow> => {
      if (encodedChildren === undefined || encodedChildren[file].length === 0) return NO_ROWS
      const rows: Array<CsvRow> = []
      for (const e of encodedChildren[file]) {
        const row = decode(e, file)
        if (row !== undefined) rows.push(row)
      }
      return rows
    }
    return { hierarchiesCsv: rowsOf("hierarchiesCsv"), barcodesCsv: rowsOf("barcodesCsv"), attributesCsv: rowsOf("attributesCsv") }
  }

  const firstLine = new Map<string, number>()
  for (const encoded of products) {
    if (encode !== undefined) {
      // Straight to JSON when it can; the rows are decoded only for a product it leaves to the full path.
      const code = fieldOfPartitionRow(encoded, codeAt.productsCsv, headers.productsCsv.delimiter)
      const encodedChildren = code === "" || firstLine.has(code) ? undefined : childrenByCode.get(code) ?? NO_CHILDREN
      if (encodedChildren !== undefined && encode(code, encoded, encodedChildren)) {
        const line = lineOfPartitionRow(encoded)
        firstLine.set(code, line)
        childrenByCode.delete(code)
        const sku = fieldOfPartitionRow(encoded, skuAt, headers.productsCsv.delimiter)
        yield { _tag: "Encoded", index: line, productCode: code, skuCode: sku, locate: (error) => locator(line, decodedChildren(encodedChildren))(error) }
        continue
      }
    }
    const product = decode(encoded, "productsCsv")
    if (product === undefined) continue
    const code = product.fields[codeAt.productsCsv] ?? ""
    const sku = product.fields[skuAt] ?? ""
    const first = code === "" ? undefined : firstLine.get(code)
    if (first !== undefined) {
      yield failedItem(sku, `productCode: ${code} already appears at productsCsv line ${first}; the first occurrence wins (productsCsv line ${product.line})`)
      continue
    }
    if (code !== "") firstLine.set(code, product.line)
    const encodedChildren = childrenByCode.get(code)
    childrenByCode.delete(code)
    const children = decodedChildren(encodedChildren)

    const value = productValue(product, children)
    if (value === undefined) {
      const problems = [record("productsCsv", product), ...CHILD_FILES.flatMap((file) => children[file].map((row) => record(file, row)))]
        .flatMap((r) => r.problems)
      yield failedItem(sku, describeProblems(problems))
      continue
    }
    yield { _tag: "Product", index: product.line, value, locate: locator(product.line, children) }
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

