import { DispatchTypes, isRealDateTime, MAX_CODE_LENGTH, MAX_DESCRIPTION_LENGTH, MAX_TEXT_LENGTH, UnitMeasurements } from "@retail/domain"
import { type CsvFileName, parseIntegerCell, parseNumberCell } from "@retail/ingest"
import type { CsvFileHeaders } from "./CsvJoin.ts"
import { lineRowTextAt } from "./CsvPartitionRow.ts"
import type { ProductJsonBytes } from "./ProductJsonBytes.ts"

/**
 * What the schema of `Product` (packages/domain/src/Product.ts) asks of one field, for the fields a
 * CSV row can fill. `sameCode`: a child's productCode, which must equal its product's.
 */
type Rule =
  | { readonly kind: "text"; readonly min: number; readonly max: number }
  | { readonly kind: "oneOf"; readonly values: ReadonlySet<string> }
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
const oneOf = (values: ReadonlyArray<string>): Rule => ({ kind: "oneOf", values: new Set(values) })
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

const isDigit = (c: number): boolean => c >= 48 && c <= 57

/**
 * Is `line[start, end)` a non-negative number that `String(Number(text))` writes back as the same text?
 * Conservative: at most 15 significant digits (any such decimal is the shortest text of its double),
 * no sign, exponent, space, leading or trailing zero that String would drop, nor a value under 1e-6
 * (written with an exponent) but 0; a fraction only when `fraction`.
 */
export const isPlainNumber = (line: string, start: number, end: number, fraction: boolean): boolean => {
  if (start === end) return false
  let i = start
  const first = line.charCodeAt(i)
  if (first === 48) {
    i++
  } else {
    if (first < 49 || first > 57) return false
    while (i < end && isDigit(line.charCodeAt(i))) i++
  }
  const integerDigits = first === 48 ? 0 : i - start
  if (i === end) return integerDigits <= 15
  if (!fraction || line.charCodeAt(i) !== 46) return false
  const fractionStart = ++i
  while (i < end && isDigit(line.charCodeAt(i))) i++
  if (i !== end || i === fractionStart || line.charCodeAt(end - 1) === 48) return false
  let leadingZeros = 0
  if (integerDigits === 0) {
    while (line.charCodeAt(fractionStart + leadingZeros) === 48) leadingZeros++
    if (leadingZeros > 5) return false
  }
  return integerDigits + (end - fractionStart) - leadingZeros <= 15
}

/** A product's child rows by file, as partition lines (`CsvPartitionRow.ts`). */
export interface EncodedChildRows {
  readonly hierarchiesCsv: ReadonlyArray<string>
  readonly barcodesCsv: ReadonlyArray<string>
  readonly attributesCsv: ReadonlyArray<string>
}

/**
 * Appends a product's JSON to the output (not ended) and answers true, or answers false with nothing
 * appended: the product is not surely valid (or one of its rows is not a one-line record), so the full
 * path (rows decoded and typed into a value, `validateForCompany`) must decide and explain.
 * `productCode`: the product row's productCode cell; `product` and `children`: its rows as partition lines.
 */
export type CsvProductJson = (productCode: string, product: string, children: EncodedChildRows) => boolean

/**
 * Validates a product straight from the cells of its rows and writes its JSON as UTF-8, without
 * splitting the rows into strings nor building the product value: what it writes is exactly
 * `JSON.stringify` of what `validateForCompany` accepts for the product the join builds from those rows
 * (a property test compares the two). It answers only for products it is sure of, all rules met, whose
 * rows are all one-line records (`encodeLineRow`, nearly every row); anything else (a bad cell, a refused
 * value, a NUL or a lone surrogate, another company's code, a row in another encoding) is false, and the
 * full path gives the same decision and error reasons as before.
 */
export const makeCsvProductJson = (headers: CsvFileHeaders, company: string, out: ProductJsonBytes): CsvProductJson => {
  const products = bind(headers, "productsCsv", PRODUCT)
  const barcodes = bind(headers, "barcodesCsv", BARCODE)
  const hierarchies = bind(headers, "hierarchiesCsv", HIERARCHY)
  const attributes = bind(headers, "attributesCsv", ATTRIBUTE)
  const widest = Math.max(products.width, barcodes.width, hierarchies.width, attributes.width)
  // Where each cell of the row at hand is: reused from row to row.
  const starts = new Int32Array(widest)
  const ends = new Int32Array(widest)
  const quoted = new Uint8Array(widest)
  let productCode = ""

  /**
   * Finds the cells of a one-line record `line[from, line.length)` as `splitCsvLine` splits it; false
   * when it would not split it (a quoted cell not closed where it should be) or the row has not `width` cells.
   */
  const split = (line: string, from: number, file: BoundFile): boolean => {
    const d = file.delimiterCode
    const end = line.length
    let p = from
    for (let k = 0; k < file.width; k++) {
      if (p < end && line.charCodeAt(p) === QUOTE) {
        let q = p + 1
        for (;;) {
          q = line.indexOf("\"", q)
          if (q === -1) return false
          if (q + 1 === end || line.charCodeAt(q + 1) === d) break
          if (line.charCodeAt(q + 1) !== QUOTE) return false
          q += 2
        }
        starts[k] = p + 1
        ends[k] = q
        quoted[k] = 1
        p = q + 1
      } else {
        let e = line.indexOf(file.delimiter, p)
        if (e === -1) e = end
        starts[k] = p
        ends[k] = e
        quoted[k] = 0
        p = e
      }
      // p is at the delimiter after the cell, or at the end of the line.
      if (k === file.width - 1) return p === end
      if (p === end) return false
      p++
    }
    return false
  }

  /** Does the cell k hold exactly `text` (in a quoted cell, a doubled quote stands for one)? */
  const cellIs = (line: string, k: number, text: string): boolean => {
    const start = starts[k]!
    const end = ends[k]!
    if (quoted[k] === 0 || text.indexOf("\"") === -1) return end - start === text.length && line.startsWith(text, start)
    let i = start
    let j = 0
    while (i < end && j < text.length) {
      const c = line.charCodeAt(i)
      if (c !== text.charCodeAt(j)) return false
      i += c === QUOTE ? 2 : 1
      j++
    }
    return i === end && j === text.length
  }

  const cellText = (line: string, k: number): string => {
    const text = line.slice(starts[k], ends[k])
    return quoted[k] === 1 && text.indexOf("\"") !== -1 ? text.replaceAll("\"\"", "\"") : text
  }

  const writeText = (line: string, k: number, min: number, max: number): boolean => {
    const units = out.cellString(line, starts[k]!, ends[k]!, quoted[k] === 1)
    return units >= min && units <= max
  }

  /** Writes the value of cell k (not empty) when its field's rule is surely met. */
  const writeCell = (line: string, k: number, field: BoundField, delimiter: "," | ";"): boolean => {
    const rule = field.rule
    if (field.cellType === "string") {
      switch (rule.kind) {
        case "text":
          return writeText(line, k, rule.min, rule.max)
        case "oneOf":
        case "dateTime": {
          const text = cellText(line, k)
          return (rule.kind === "oneOf" ? rule.values.has(text) : isRealDateTime(text)) && writeText(line, k, 1, MAX_CODE_LENGTH)
        }
        case "company":
          return cellIs(line, k, company) && writeText(line, k, 1, MAX_CODE_LENGTH)
        case "sameCode":
          return cellIs(line, k, productCode) && writeText(line, k, 1, MAX_CODE_LENGTH)
        default:
          return false
      }
    }
    if (isPlainNumber(line, starts[k]!, ends[k]!, field.cellType === "number")) {
      // Written as it is: it is how String writes its value, and a plain number meets every rule of its
      // field but 0 for a positive integer and the 32-bit range of an int32.
      const value = rule.kind === "amount" ? 0 : Number(cellText(line, k))
      if (rule.kind === "positiveInteger" ? value < 1 : rule.kind === "int32" ? value > 2147483647 : false) return false
      out.asciiFrom(line, starts[k]!, ends[k]!)
      return true
    }
    const text = cellText(line, k)
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
    out.ascii(String(value))
    return true
  }

  /** One row (a partition line) as a JSON object (its closing brace left out when `close` is false). */
  const writeRow = (line: string, file: BoundFile, close: boolean): boolean => {
    const from = lineRowTextAt(line)
    if (from === -1 || !split(line, from, file)) return false
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
        if (!writeCell(line, k, field, file.delimiter)) return false
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

  const writeList = (lines: ReadonlyArray<string>, file: BoundFile): boolean => {
    for (let i = 0; i < lines.length; i++) {
      if (i > 0) out.raw(COMMA)
      if (!writeRow(lines[i]!, file, true)) return false
    }
    return true
  }

  const write = (product: string, children: EncodedChildRows): boolean => {
    if (children.hierarchiesCsv.length === 0) return false
    if (!writeRow(product, products, false)) return false
    out.raw(BARCODES)
    if (!writeList(children.barcodesCsv, barcodes)) return false
    out.raw(HIERARCHIES)
    if (!writeList(children.hierarchiesCsv, hierarchies)) return false
    out.raw(ATTRIBUTES)
    if (!writeList(children.attributesCsv, attributes)) return false
    out.raw(CLOSE_LIST_AND_PRODUCT)
    return true
  }

  return (code, product, children) => {
    productCode = code
    if (write(product, children)) return true
    out.drop()
    return false
  }
}
