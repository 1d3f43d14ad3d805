import { DispatchTypes, MAX_CODE_LENGTH, MAX_DESCRIPTION_LENGTH, MAX_TEXT_LENGTH, UnitMeasurements } from "@retail/domain"
import type { CsvFileName } from "./CsvLayout.ts"
import { parseIntegerCell, parseNumberCell } from "./CsvCell.ts"
import type { CsvFileHeaders } from "./CsvFileHeaders.ts"
import { lineRowTextAtBytes } from "./CsvPartitionRow.ts"
import { isPlainNumber, isRealDateTimeBytes } from "./CsvCellBytes.ts"
import type { PartitionLines } from "./PartitionLines.ts"
import type { ProductJsonBytes } from "./ProductJsonBytes.ts"

/**
 * What the schema of `Product` (packages/domain/src/Product.ts) asks of one field, for the fields a
 * CSV row can fill. `sameCode`: a child's productCode, which must equal its product's.
 */
type Rule =
  | { readonly kind: "text"; readonly min: number; readonly max: number }
  | { readonly kind: "oneOf"; readonly values: ReadonlyArray<Uint8Array> }
  | { readonly kind: "dateTime" }
  | { readonly kind: "company" }
  | { readonly kind: "sameCode" }
  | { readonly kind: "amount" }
  | { readonly kind: "positiveInteger" }
  | { readonly kind: "int32" }

interface FieldSpec {
  readonly key: string
  readonly rule: Rule
  /** The key may be absent. */
  readonly optional?: boolean
  /** null is a valid value. */
  readonly nullable?: boolean
}

const code: Rule = { kind: "text", min: 1, max: MAX_CODE_LENGTH }
const requiredText: Rule = { kind: "text", min: 1, max: MAX_TEXT_LENGTH }
const optionalText: Rule = { kind: "text", min: 0, max: MAX_TEXT_LENGTH }
const amount: Rule = { kind: "amount" }
const oneOf = (values: ReadonlyArray<string>): Rule => ({ kind: "oneOf", values: values.map((v) => Buffer.from(v, "utf8")) })
const trueFalse = oneOf(["T", "F"])

/** Product's scalar fields, in the schema's key order (the order `JSON.stringify` writes a validated product in). */
const PRODUCT: ReadonlyArray<FieldSpec> = [
  { key: "productCode", rule: code },
  { key: "skuCode", rule: code },
  { key: "eanCode", rule: code },
  { key: "description", rule: { kind: "text", min: 1, max: MAX_DESCRIPTION_LENGTH } },
  { key: "price", rule: amount },
  { key: "length", rule: amount },
  { key: "width", rule: amount },
  { key: "height", rule: amount },
  { key: "weight", rule: amount },
  { key: "productType", rule: code },
  { key: "dispatchType", rule: oneOf(DispatchTypes), optional: true, nullable: true },
  { key: "unitMeasurement", rule: oneOf(UnitMeasurements) },
  { key: "unitedNationsCode", rule: code },
  { key: "hierarchyCode", rule: code },
  { key: "companyCode", rule: { kind: "company" }, optional: true, nullable: true },
  { key: "taxSale", rule: trueFalse },
  { key: "taxSelective", rule: amount, optional: true, nullable: true },
  { key: "salesTax", rule: amount, optional: true, nullable: true },
  { key: "productPmmStatus", rule: code },
  { key: "dateUpdate", rule: { kind: "dateTime" } },
  { key: "isEcommerce", rule: trueFalse },
  { key: "measurable", rule: trueFalse },
  { key: "skuCodePlatform", rule: code, optional: true, nullable: true },
  { key: "conversionFactor", rule: { kind: "positiveInteger" } }
]
const BARCODE: ReadonlyArray<FieldSpec> = [
  { key: "productCode", rule: { kind: "sameCode" } },
  { key: "eanCode", rule: code },
  { key: "indicator", rule: requiredText }
]
const HIERARCHY: ReadonlyArray<FieldSpec> = [
  { key: "hierarchyCode", rule: code },
  { key: "hierarchyLevel", rule: { kind: "int32" } },
  { key: "hierarchyParent", rule: optionalText, optional: true },
  { key: "hierarchyName", rule: optionalText, optional: true },
  { key: "hierarchyDescription", rule: optionalText, optional: true },
  { key: "hierarchyBreadcrumb", rule: optionalText, optional: true, nullable: true }
]
const ATTRIBUTE: ReadonlyArray<FieldSpec> = [
  { key: "attributeType", rule: requiredText },
  { key: "parentAttributeCode", rule: code },
  { key: "attributeCode", rule: code },
  { key: "attributeDescription", rule: requiredText },
  { key: "productCode", rule: { kind: "sameCode" } },
  { key: "attributeDescriptionDetail", rule: optionalText, optional: true }
]

/** A field bound to its file's header: where its cell is and how the cell is typed. */
interface BoundField {
  /** `{"key":` as bytes, for the first key of an object. */
  readonly firstKey: Uint8Array
  /** `,"key":` as bytes. */
  readonly nextKey: Uint8Array
  readonly rule: Rule
  readonly optional: boolean
  readonly nullable: boolean
  /** Position of its column in a row, -1 when the header lacks it (the field is then absent). */
  readonly at: number
  /** An empty cell is null (else absent). */
  readonly emptyIsNull: boolean
  readonly cellType: "string" | "number" | "integer"
}

interface BoundFile {
  readonly fields: ReadonlyArray<BoundField>
  readonly width: number
  readonly delimiter: "," | ";"
  readonly delimiterCode: number
}

const QUOTE = 34
const NUMERIC = new Set<Rule["kind"]>(["amount", "positiveInteger", "int32"])
const ascii = (text: string): Uint8Array => Buffer.from(text, "latin1")
const NULL = ascii("null")
const BARCODES = ascii(`,"barcodes":[`)
const HIERARCHIES = ascii(`],"hierarchies":[`)
const ATTRIBUTES = ascii(`],"lstAttributes":[`)
const CLOSE_LIST_AND_PRODUCT = ascii("]}")
const CLOSE = ascii("}")
const COMMA = ascii(",")
const EMPTY_OBJECT = ascii("{}")

const bind = (headers: CsvFileHeaders, file: CsvFileName, specs: ReadonlyArray<FieldSpec>): BoundFile => {
  const { delimiter, fields: headerFields, header } = headers[file]
  const fields = specs.map((spec): BoundField => {
    const column = header.layout.columns.find((c) => c.name === spec.key)
    if (column === undefined) throw new Error(`${file} has no column ${spec.key}`)
    if (NUMERIC.has(spec.rule.kind) !== (column.type !== "string")) throw new Error(`${file} column ${spec.key} is not typed as its rule needs`)
    return {
      firstKey: ascii(`{"${spec.key}":`),
      nextKey: ascii(`,"${spec.key}":`),
      rule: spec.rule,
      optional: spec.optional === true,
      nullable: spec.nullable === true,
      at: header.positionOf(spec.key),
      emptyIsNull: column.nullable,
      cellType: column.type
    }
  })
  return { fields, width: headerFields.length, delimiter, delimiterCode: delimiter.charCodeAt(0) }
}

/**
 * Validates a product straight from the bytes of its rows' cells and writes its JSON as UTF-8, without
 * decoding the rows into strings nor building the product value: what it writes is exactly
 * `JSON.stringify` of what `validateForCompany` accepts for the product the join builds from those rows
 * (a property test compares the two). It answers only for products it is sure of, all rules met, whose
 * rows are all one-line records (`encodeLineRow`, nearly every row); anything else (a bad cell, a refused
 * value, a NUL, another company's code, a row in another encoding) is false, and the full path gives the
 * same decision and error reasons as before. The bytes must be valid UTF-8 (the join makes sure): a
 * character's UTF-16 length is read from its first byte, and valid UTF-8 holds no surrogate.
 *
 * A class, not closures: one is made per partition, and V8 optimizes a method once for all of them
 * where it would optimize each partition's closures anew.
 */
export class CsvProductJson {
  private readonly products: BoundFile
  private readonly barcodes: BoundFile
  private readonly hierarchies: BoundFile
  private readonly attributes: BoundFile
  private readonly productCodeAt: number
  private readonly company: Uint8Array
  // Where each cell of the row at hand is: reused from row to row.
  private readonly starts: Int32Array
  private readonly ends: Int32Array
  private readonly quoted: Uint8Array
  /** The product's productCode (quotes undone), what its children's must equal. */
  private productCode = new Uint8Array(64)
  private productCodeLength = 0
  /** The partition's bytes. */
  private bytes: Uint8Array = this.productCode

  constructor(headers: CsvFileHeaders, company: string, private readonly out: ProductJsonBytes) {
    this.products = bind(headers, "productsCsv", PRODUCT)
    this.barcodes = bind(headers, "barcodesCsv", BARCODE)
    this.hierarchies = bind(headers, "hierarchiesCsv", HIERARCHY)
    this.attributes = bind(headers, "attributesCsv", ATTRIBUTE)
    this.productCodeAt = headers.productsCsv.header.positionOf("productCode")
    this.company = Buffer.from(company, "utf8")
    const widest = Math.max(this.products.width, this.barcodes.width, this.hierarchies.width, this.attributes.width)
    this.starts = new Int32Array(widest)
    this.ends = new Int32Array(widest)
    this.quoted = new Uint8Array(widest)
  }

  /**
   * Appends a product's JSON to the output (not ended) and answers true, or answers false with nothing
   * appended: the product is not surely valid (or one of its rows is not a one-line record), so the full
   * path (rows decoded and typed into a value, `validateForCompany`) must decide and explain.
   * `product`: the product row's line in `lines`; `hierarchies`, `barcodes`, `attributes`: the first of
   * its child rows of each file, chained by `lines.next` in file order (-1: none).
   */
  write(lines: PartitionLines, product: number, hierarchies: number, barcodes: number, attributes: number): boolean {
    this.bytes = lines.bytes
    if (this.writeProduct(lines, product, hierarchies, barcodes, attributes)) return true
    this.out.drop()
    return false
  }

  private writeProduct(lines: PartitionLines, product: number, hierarchyRows: number, barcodeRows: number, attributeRows: number): boolean {
    if (hierarchyRows === -1) return false
    if (!this.writeRow(lines.start[product]!, lines.end[product]!, this.products, false)) return false
    this.keepProductCode()
    this.out.raw(BARCODES)
    if (!this.writeList(lines, barcodeRows, this.barcodes)) return false
    this.out.raw(HIERARCHIES)
    if (!this.writeList(lines, hierarchyRows, this.hierarchies)) return false
    this.out.raw(ATTRIBUTES)
    if (!this.writeList(lines, attributeRows, this.attributes)) return false
    this.out.raw(CLOSE_LIST_AND_PRODUCT)
    return true
  }

  private writeList(lines: PartitionLines, first: number, file: BoundFile): boolean {
    const next = lines.next
    for (let r = first; r !== -1; r = next[r]!) {
      if (r !== first) this.out.raw(COMMA)
      if (!this.writeRow(lines.start[r]!, lines.end[r]!, file, true)) return false
    }
    return true
  }

  /** One row, the line bytes[start, end), as a JSON object (its closing brace left out when `close` is false). */
  private writeRow(start: number, end: number, file: BoundFile, close: boolean): boolean {
    const from = lineRowTextAtBytes(this.bytes, start, end)
    if (from === -1 || !this.split(from, end, file)) return false
    const out = this.out
    const starts = this.starts
    const ends = this.ends
    let opened = false
    for (const field of file.fields) {
      const k = field.at
      if (k === -1 || starts[k] === ends[k]) {
        if (k === -1 || !field.emptyIsNull) {
          if (!field.optional) return false
          continue
        }
        if (!field.nullable) return false
        out.raw(opened ? field.nextKey : field.firstKey)
        out.raw(NULL)
      } else {
        out.raw(opened ? field.nextKey : field.firstKey)
        if (!this.writeCell(k, field, file.delimiter)) return false
      }
      opened = true
    }
    if (!opened) {
      // Only a child row can lack every key (a product must have its productCode).
      if (!close) return false
      out.raw(EMPTY_OBJECT)
      return true
    }
    if (close) out.raw(CLOSE)
    return true
  }

  /**
   * Finds the cells of a one-line record `bytes[from, end)` as `splitCsvLine` splits it; false
   * when it would not split it (a quoted cell not closed where it should be) or the row has not `width` cells.
   */
  private split(from: number, end: number, file: BoundFile): boolean {
    const bytes = this.bytes
    const starts = this.starts
    const ends = this.ends
    const quoted = this.quoted
    const d = file.delimiterCode
    const width = file.width
    let p = from
    for (let k = 0; k < width; k++) {
      if (p < end && bytes[p] === QUOTE) {
        let q = p + 1
        for (;;) {
          while (q < end && bytes[q] !== QUOTE) q++
          if (q === end) return false
          if (q + 1 === end || bytes[q + 1] === d) break
          if (bytes[q + 1] !== QUOTE) return false
          q += 2
        }
        starts[k] = p + 1
        ends[k] = q
        quoted[k] = 1
        p = q + 1
      } else {
        let e = p
        while (e < end && bytes[e] !== d) e++
        starts[k] = p
        ends[k] = e
        quoted[k] = 0
        p = e
      }
      // p is at the delimiter after the cell, or at the end of the line.
      if (k === width - 1) return p === end
      if (p === end) return false
      p++
    }
    return false
  }

  /** Writes the value of cell k (not empty) when its field's rule is surely met. */
  private writeCell(k: number, field: BoundField, delimiter: "," | ";"): boolean {
    const rule = field.rule
    if (field.cellType === "string") {
      switch (rule.kind) {
        case "text":
          return this.writeText(k, rule.min, rule.max)
        case "oneOf":
          return this.isOneOf(k, rule.values) && this.writeText(k, 1, MAX_CODE_LENGTH)
        case "dateTime":
          return isRealDateTimeBytes(this.bytes, this.starts[k]!, this.ends[k]!) && this.writeText(k, 1, MAX_CODE_LENGTH)
        case "company":
          return this.cellIs(k, this.company, this.company.length) && this.writeText(k, 1, MAX_CODE_LENGTH)
        case "sameCode":
          return this.cellIs(k, this.productCode, this.productCodeLength) && this.writeText(k, 1, MAX_CODE_LENGTH)
        default:
          return false
      }
    }
    const bytes = this.bytes
    const start = this.starts[k]!
    const end = this.ends[k]!
    if (isPlainNumber(bytes, start, end, field.cellType === "number")) {
      // Written as it is: it is how String writes its value, and a plain number meets every rule of its
      // field but 0 for a positive integer and the 32-bit range of an int32 (an integer cell: digits only).
      if (rule.kind !== "amount") {
        let value = 0
        for (let i = start; i < end; i++) value = 10 * value + bytes[i]! - 48
        if (rule.kind === "positiveInteger" ? value < 1 : rule.kind === "int32" ? value > 2147483647 : false) return false
      }
      this.out.copy(bytes, start, end)
      return true
    }
    const text = this.cellText(k)
    const value = field.cellType === "number" ? parseNumberCell(text, delimiter) : parseIntegerCell(text)
    if (typeof value !== "number") return false
    switch (rule.kind) {
      case "amount":
        if (!(Number.isFinite(value) && value >= 0)) return false
        break
      case "positiveInteger":
        if (!(Number.isSafeInteger(value) && value >= 1)) return false
        break
      case "int32":
        if (!(Number.isSafeInteger(value) && value >= -2147483648 && value <= 2147483647)) return false
        break
      default:
        return false
    }
    this.out.ascii(String(value))
    return true
  }

  private writeText(k: number, min: number, max: number): boolean {
    const units = this.out.cellString(this.bytes, this.starts[k]!, this.ends[k]!, this.quoted[k] === 1)
    return units >= min && units <= max
  }

  private isOneOf(k: number, values: ReadonlyArray<Uint8Array>): boolean {
    for (const value of values) if (this.cellIs(k, value, value.length)) return true
    return false
  }

  /** Does the cell k hold exactly `text[0, length)` (in a quoted cell, a doubled quote stands for one)? */
  private cellIs(k: number, text: Uint8Array, length: number): boolean {
    const bytes = this.bytes
    const start = this.starts[k]!
    const end = this.ends[k]!
    if (this.quoted[k] === 0) {
      if (end - start !== length) return false
      let j = 0
      while (j < length && bytes[start + j] === text[j]) j++
      return j === length
    }
    let i = start
    let j = 0
    while (i < end && j < length) {
      const c = bytes[i]!
      if (c !== text[j]) return false
      i += c === QUOTE ? 2 : 1
      j++
    }
    return i === end && j === length
  }

  /** Cell k as text, for the rare cell the bytes alone do not settle. */
  private cellText(k: number): string {
    const bytes = this.bytes
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8", this.starts[k], this.ends[k])
    return this.quoted[k] === 1 && text.indexOf("\"") !== -1 ? text.replaceAll("\"\"", "\"") : text
  }

  /** Keeps the product row's productCode cell, quotes undone, for its children's to be compared with. */
  private keepProductCode(): void {
    const bytes = this.bytes
    const at = this.productCodeAt
    const start = this.starts[at]!
    const end = this.ends[at]!
    const quoted = this.quoted[at] === 1
    if (this.productCode.length < end - start) this.productCode = new Uint8Array(2 * (end - start))
    const code = this.productCode
    let j = 0
    for (let i = start; i < end; i++) {
      code[j++] = bytes[i]!
      if (quoted && bytes[i] === QUOTE) i++
    }
    this.productCodeLength = j
  }
}
