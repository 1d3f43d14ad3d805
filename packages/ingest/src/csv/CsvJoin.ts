import type { CsvFileName } from "./CsvLayout.ts"
import type { CsvProblem, CsvRecord, CsvValue } from "./CsvRecords.ts"
import type { CsvRow } from "./CsvReader.ts"
import { isUtf8 } from "node:buffer"
import { ProductCodeNumbers } from "./ProductCodeNumbers.ts"
import {
  decodePartitionRow,
  type FieldSpan,
  fieldOfPartitionRow,
  fieldSpanOfPartitionRow,
  fileOfPartitionRowBytes,
  lineOfPartitionRowBytes
} from "./CsvPartitionRow.ts"
import type { CsvProductJson } from "./CsvProductJson.ts"
import type { CsvFileHeaders } from "./CsvFileHeaders.ts"
import { failedItem, type FileProduct } from "../FileProduct.ts"
import { LineLists, PartitionLines } from "./PartitionLines.ts"

type ChildFile = Exclude<CsvFileName, "productsCsv">

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
const NO_CHILD_ROWS: ChildRows = { hierarchiesCsv: NO_ROWS, barcodesCsv: NO_ROWS, attributesCsv: NO_ROWS }
/** A child file's list in `LineLists`. */
const KIND_OF: Readonly<Record<ChildFile, number>> = { hierarchiesCsv: 0, barcodesCsv: 1, attributesCsv: 2 }
const LF = 10
const FILE_OF_LIST: Readonly<Record<string, ChildFile>> = { hierarchies: "hierarchiesCsv", barcodes: "barcodesCsv", lstAttributes: "attributesCsv" }
const LISTED_PROBLEMS = 10
const LISTED_LINES = 5

const describeProblem = (p: CsvProblem): string => `${p.file} line ${p.line}: ${p.column === undefined ? "" : `${p.column}: `}${p.reason}`

const describeProblems = (problems: ReadonlyArray<CsvProblem>): string => {
  const listed = problems.slice(0, LISTED_PROBLEMS).map(describeProblem).join("; ")
  return problems.length > LISTED_PROBLEMS ? `${listed}; and ${problems.length - LISTED_PROBLEMS} more problems` : listed
}

/** "hierarchiesCsv lines 3, 7 and 2 more": the first few lines of a list, in file order. */
const linesOf = (file: CsvFileName, lines: PartitionLines, first: number, count: number): string => {
  const numbers: Array<number> = []
  for (let r = first; r !== -1 && numbers.length < LISTED_LINES; r = lines.next[r]!) {
    numbers.push(lineOfPartitionRowBytes(lines.bytes, lines.start[r]!, lines.end[r]!))
  }
  const more = count > LISTED_LINES ? ` and ${count - LISTED_LINES} more` : ""
  return `${file} line${count > 1 ? "s" : ""} ${numbers.join(", ")}${more}`
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

/**
 * A product `CsvProductJson` validated and has written from its cells (not ended yet). Nothing is left to
 * decide: the join fails a repeated productCode of its partition before any product is validated or
 * written, and a productCode is always in one partition, so the load's duplicate rule cannot fail it.
 */
export interface EncodedProduct {
  readonly _tag: "Encoded"
}

const ENCODED: EncodedProduct = { _tag: "Encoded" }

/** The line of a row as the string path reads it, undefined for a line the encoders did not write. */
const decode = (headers: CsvFileHeaders, text: string, file: CsvFileName): CsvRow | undefined =>
  decodePartitionRow(text, headers[file].delimiter)?.row

const record = (headers: CsvFileHeaders, file: CsvFileName, row: CsvRow): CsvRecord => headers[file].header.map(row, headers[file].delimiter)

const valuesOf = (headers: CsvFileHeaders, file: CsvFileName, row: CsvRow): Record<string, CsvValue> | undefined =>
  row.fault === undefined ? headers[file].header.values(row.fields, headers[file].delimiter) : undefined

/** The product to validate, undefined when one of its rows has a problem. */
const productValue = (headers: CsvFileHeaders, product: CsvRow, children: ChildRows): Record<string, unknown> | undefined => {
  const value: Record<string, unknown> | undefined = valuesOf(headers, "productsCsv", product)
  if (value === undefined) return undefined
  for (const file of CHILD_FILES) {
    const list: Array<Record<string, CsvValue>> = []
    for (const row of children[file]) {
      const values = valuesOf(headers, file, row)
      if (values === undefined) return undefined
      list.push(values)
    }
    value[LIST_OF[file]] = list
  }
  return value
}

/**
 * One partition's rows grouped without a string per row: its lines as byte offsets (`PartitionLines`),
 * the child rows chained per productCode and file (`LineLists`), each productCode numbered from its bytes
 * (`ProductCodeNumbers`). Methods, not closures made per partition: V8 optimizes them once for all partitions.
 */
class PartitionGroups {
  readonly bytes: Uint8Array
  readonly codes = new ProductCodeNumbers()
  readonly children: LineLists
  private readonly span: FieldSpan = { start: 0, end: 0 }
  private readonly codeAt: Readonly<Record<CsvFileName, number>>
  /** Line of each productCode's product row once it was joined (its children then taken), -1 before. */
  private firstLine = new Int32Array(1024).fill(-1)

  constructor(readonly lines: PartitionLines, readonly headers: CsvFileHeaders) {
    this.bytes = lines.bytes
    this.children = new LineLists(lines, CHILD_FILES.length)
    this.codeAt = {
      productsCsv: headers.productsCsv.header.positionOf("productCode"),
      hierarchiesCsv: headers.hierarchiesCsv.header.positionOf("productCode"),
      barcodesCsv: headers.barcodesCsv.header.positionOf("productCode"),
      attributesCsv: headers.attributesCsv.header.positionOf("productCode")
    }
  }

  /** The number of line r's productCode (as `fieldOfPartitionRow` reads it: from its bytes when they tell), -1 when it has none. */
  codeOf(r: number, file: CsvFileName): number {
    const lines = this.lines
    const span = this.span
    const delimiter = this.headers[file].delimiter
    if (fieldSpanOfPartitionRow(this.bytes, lines.start[r]!, lines.end[r]!, this.codeAt[file], delimiter, span)) {
      return span.start === span.end ? -1 : this.codes.idOf(this.bytes, span.start, span.end)
    }
    const code = fieldOfPartitionRow(lines.text(r), this.codeAt[file], delimiter)
    return code === "" ? -1 : this.codes.idOfText(code)
  }

  /** Child row r, under its productCode; false when it has none. */
  addChild(r: number, file: ChildFile): boolean {
    const code = this.codeOf(r, file)
    if (code === -1) return false
    this.children.append(code, KIND_OF[file], r)
    return true
  }

  first(code: number, file: ChildFile): number {
    return this.children.first(code, KIND_OF[file])
  }

  /** The child rows of a productCode, decoded (the string path). */
  decodedChildren(code: number): ChildRows {
    if (code === -1) return NO_CHILD_ROWS
    const rowsOf = (file: ChildFile): ReadonlyArray<CsvRow> => {
      const rows: Array<CsvRow> = []
      for (let r = this.first(code, file); r !== -1; r = this.lines.next[r]!) {
        const row = decode(this.headers, this.lines.text(r), file)
        if (row !== undefined) rows.push(row)
      }
      return rows.length === 0 ? NO_ROWS : rows
    }
    return { hierarchiesCsv: rowsOf("hierarchiesCsv"), barcodesCsv: rowsOf("barcodesCsv"), attributesCsv: rowsOf("attributesCsv") }
  }

  firstLineOf(code: number): number {
    return code < this.firstLine.length ? this.firstLine[code]! : -1
  }

  /** The product row of `code` at `line` takes its children. */
  join(code: number, line: number): void {
    if (code >= this.firstLine.length) {
      const grown = new Int32Array(Math.max(code + 1, 2 * this.firstLine.length)).fill(-1)
      grown.set(this.firstLine)
      this.firstLine = grown
    }
    this.firstLine[code] = line
  }

  /** "productCode: P1 has child rows but no row in productsCsv (...)" for a productCode no product row took, else undefined. */
  orphans(code: number): string | undefined {
    if (this.firstLineOf(code) !== -1) return undefined
    const referenced = CHILD_FILES.filter((file) => this.children.count(code, KIND_OF[file]) > 0)
      .map((file) => linesOf(file, this.lines, this.first(code, file), this.children.count(code, KIND_OF[file])))
      .join("; ")
    return referenced === "" ? undefined : `productCode: ${this.codes.text(code)} has child rows but no row in productsCsv (${referenced})`
  }
}

/**
 * Joins the rows of one partition (its file's bytes): every child row under its productCode, then each
 * product row (in file order) with its children, lazily. Yields one item per product row, one failure
 * per child row without a productCode and one per productCode that has child rows but no product row.
 */
export function* joinPartition(bytes: Uint8Array, headers: CsvFileHeaders): Generator<FileProduct> {
  for (const item of joinPartitionEncoding(bytes, headers, undefined)) {
    if (item._tag !== "Encoded") yield item
  }
}

/**
 * `joinPartition` of a partition file's bytes, but a product that `encode` validates and writes straight
 * from its cells is yielded as an `EncodedProduct` (its JSON written, to be ended before the next item
 * is asked for) instead of a value to validate; the others as `joinPartition` yields them.
 *
 * Rows are grouped as byte offsets (`PartitionGroups`). A row becomes a string only on the full path: a
 * product `encode` leaves to it (its rows decoded and typed straight into the product value, short-lived
 * garbage), a row whose productCode needs decoding (quoted, or in the other encodings), a failure to
 * describe. Only a product with a problem is typed again with `CsvHeader.map`, for the problems in file
 * and column order.
 */
export function* joinPartitionEncoding(
  input: Uint8Array,
  headers: CsvFileHeaders,
  encode: CsvProductJson | undefined
): Generator<FileProduct | EncodedProduct> {
  // The byte path reads UTF-16 lengths from UTF-8 and trusts it holds no surrogate. The split only writes
  // valid UTF-8; anything else is read as the text decoding gives (U+FFFD for a bad sequence), as it was.
  const lines = new PartitionLines(isUtf8(input) ? input : Buffer.from(Buffer.from(input.buffer, input.byteOffset, input.length).toString("utf8"), "utf8"))
  const bytes = lines.bytes
  const groups = new PartitionGroups(lines, headers)
  const codeAt = headers.productsCsv.header.positionOf("productCode")
  const skuAt = headers.productsCsv.header.positionOf("skuCode")

  const products: Array<number> = []
  for (let start = 0; start < bytes.length;) {
    let end = bytes.indexOf(LF, start)
    if (end === -1) end = bytes.length
    const file = start === end ? undefined : fileOfPartitionRowBytes(bytes, start)
    const r = file === undefined ? -1 : lines.add(start, end)
    start = end + 1
    if (file === undefined) continue
    if (file === "productsCsv") {
      products.push(r)
      continue
    }
    if (groups.addChild(r, file)) continue
    const row = decode(headers, lines.text(r), file)
    if (row === undefined) continue
    const problem: CsvProblem = { file, line: row.line, column: "productCode", reason: "is required to join the row to its product" }
    yield failedItem("", describeProblems([problem, ...record(headers, file, row).problems]))
  }

  for (const r of products) {
    if (encode !== undefined) {
      // Straight to JSON when it can; the rows are decoded only for a product it leaves to the full path.
      const code = groups.codeOf(r, "productsCsv")
      if (
        code !== -1 && groups.firstLineOf(code) === -1 &&
        encode.write(lines, r, groups.first(code, "hierarchiesCsv"), groups.first(code, "barcodesCsv"), groups.first(code, "attributesCsv"))
      ) {
        groups.join(code, lineOfPartitionRowBytes(bytes, lines.start[r]!, lines.end[r]!))
        yield ENCODED
        continue
      }
    }
    const product = decode(headers, lines.text(r), "productsCsv")
    if (product === undefined) continue
    const codeText = product.fields[codeAt] ?? ""
    const sku = product.fields[skuAt] ?? ""
    const code = codeText === "" ? -1 : groups.codes.idOfText(codeText)
    const first = code === -1 ? -1 : groups.firstLineOf(code)
    if (first !== -1) {
      yield failedItem(sku, `productCode: ${codeText} already appears at productsCsv line ${first}; the first occurrence wins (productsCsv line ${product.line})`)
      continue
    }
    if (code !== -1) groups.join(code, product.line)
    const rows = groups.decodedChildren(code)

    const value = productValue(headers, product, rows)
    if (value === undefined) {
      const problems = [record(headers, "productsCsv", product), ...CHILD_FILES.flatMap((file) => rows[file].map((row) => record(headers, file, row)))]
        .flatMap((r) => r.problems)
      yield failedItem(sku, describeProblems(problems))
      continue
    }
    yield { _tag: "Product", index: product.line, value, locate: locator(product.line, rows) }
  }

  for (let code = 0; code < groups.codes.count; code++) {
    const orphans = groups.orphans(code)
    if (orphans !== undefined) yield failedItem(groups.codes.text(code), orphans)
  }
}
