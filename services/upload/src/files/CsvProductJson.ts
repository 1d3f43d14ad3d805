import { DispatchTypes, isRealDateTime, MAX_CODE_LENGTH, MAX_DESCRIPTION_LENGTH, MAX_TEXT_LENGTH, UnitMeasurements } from "@retail/domain"
import { type CsvFileName, type CsvRow, parseIntegerCell, parseNumberCell } from "@retail/ingest"
import type { CsvFileHeaders } from "./CsvJoin.ts"
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
}

/** Text the schema refuses (NUL), or might (a surrogate, paired or not): left to the full validation. */
const REFUSED_OR_DOUBTFUL = /[\u0000\ud800-\udfff]/

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
  return { fields, width: headerFields.length, delimiter }
}

/** The decoded child rows of one product, by file. */
export interface ProductChildRows {
  readonly hierarchiesCsv: ReadonlyArray<CsvRow>
  readonly barcodesCsv: ReadonlyArray<CsvRow>
  readonly attributesCsv: ReadonlyArray<CsvRow>
}

/**
 * Appends a product's JSON to the output (not ended) and answers true, or answers false with nothing
 * appended: the product is not surely valid, so the full path (typed values, `validateForCompany`) must
 * decide and explain.
 */
export type CsvProductJson = (product: CsvRow, children: ProductChildRows) => boolean

/**
 * Validates a product straight from its rows' cells and writes its JSON as UTF-8, without building the
 * product value nor a string of it: what it writes is exactly `JSON.stringify` of what
 * `validateForCompany` accepts for the product the join builds from those rows (a property test compares
 * the two). It answers only for products it is sure of, all rules met; anything else (a bad cell, a
 * refused value, text with a NUL or a surrogate, another company's code) is false, and the full path
 * gives the same decision and error reasons as before.
 */
export const makeCsvProductJson = (headers: CsvFileHeaders, company: string, out: ProductJsonBytes): CsvProductJson => {
  const products = bind(headers, "productsCsv", PRODUCT)
  const barcodes = bind(headers, "barcodesCsv", BARCODE)
  const hierarchies = bind(headers, "hierarchiesCsv", HIERARCHY)
  const attributes = bind(headers, "attributesCsv", ATTRIBUTE)
  const codeAt = products.fields[0]!.at
  let productCode = ""

  /** A text cell as a JSON string, when it is within `min`..`max` characters and storable. */
  const writeText = (cell: string, min: number, max: number): boolean => {
    if (cell.length < min || cell.length > max) return false
    if (out.plainString(cell)) return true
    if (REFUSED_OR_DOUBTFUL.test(cell)) return false
    out.text(JSON.stringify(cell))
    return true
  }

  /** Writes one non-empty cell's value when its rule is surely met. */
  const writeCell = (cell: string, field: BoundField, delimiter: "," | ";"): boolean => {
    const rule = field.rule
    if (field.cellType === "string") {
      switch (rule.kind) {
        case "text":
          return writeText(cell, rule.min, rule.max)
        case "oneOf":
          return rule.values.has(cell) && out.plainString(cell)
        case "dateTime":
          return isRealDateTime(cell) && out.plainString(cell)
        case "company":
          return cell === company && writeText(cell, 1, MAX_CODE_LENGTH)
        case "sameCode":
          return cell === productCode && writeText(cell, 1, MAX_CODE_LENGTH)
        default:
          return false
      }
    }
    const value = field.cellType === "number" ? parseNumberCell(cell, delimiter) : parseIntegerCell(cell)
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

  /** One row as a JSON object (its closing brace left out when `close` is false). */
  const writeRow = (row: CsvRow, file: BoundFile, close: boolean): boolean => {
    if (row.fault !== undefined || row.fields.length !== file.width) return false
    const cells = row.fields
    let opened = false
    for (const field of file.fields) {
      const cell = field.at === -1 ? undefined : cells[field.at]!
      if (cell === undefined || cell.length === 0) {
        if (cell === undefined || !field.emptyIsNull) {
          if (!field.optional) return false
          continue
        }
        if (!field.nullable) return false
        out.raw(opened ? field.nextKey : field.firstKey)
        out.raw(NULL)
      } else {
        out.raw(opened ? field.nextKey : field.firstKey)
        if (!writeCell(cell, field, file.delimiter)) return false
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

  const writeList = (rows: ReadonlyArray<CsvRow>, file: BoundFile): boolean => {
    for (let i = 0; i < rows.length; i++) {
      if (i > 0) out.raw(COMMA)
      if (!writeRow(rows[i]!, file, true)) return false
    }
    return true
  }

  const write = (product: CsvRow, children: ProductChildRows): boolean => {
    if (children.hierarchiesCsv.length === 0) return false
    productCode = product.fields[codeAt] ?? ""
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

  return (product, children) => {
    if (write(product, children)) return true
    out.drop()
    return false
  }
}
