/** The four CSV files of /handle-csv for a list of products, as a client would write them (docs/csv-format.md). */
export interface CsvFiles {
  readonly productsCsv: string
  readonly hierarchiesCsv: string
  readonly barcodesCsv: string
  readonly attributesCsv: string
}

export interface CsvFileOptions {
  readonly delimiter?: "," | ";"
  readonly lineEnd?: "\n" | "\r\n"
  /** Starts each file with a UTF-8 byte order mark. */
  readonly bom?: boolean
}

export const PRODUCT_CSV_COLUMNS = [
  "productCode", "skuCode", "eanCode", "description", "price", "length", "width", "height", "weight", "productType",
  "dispatchType", "unitMeasurement", "unitedNationsCode", "hierarchyCode", "companyCode", "taxSale", "taxSelective",
  "salesTax", "productPmmStatus", "dateUpdate", "isEcommerce", "measurable", "skuCodePlatform", "conversionFactor"
] as const
export const HIERARCHY_CSV_COLUMNS = [
  "productCode", "hierarchyCode", "hierarchyLevel", "hierarchyParent", "hierarchyName", "hierarchyDescription", "hierarchyBreadcrumb"
] as const
export const BARCODE_CSV_COLUMNS = ["productCode", "eanCode", "indicator"] as const
export const ATTRIBUTE_CSV_COLUMNS = [
  "productCode", "attributeType", "parentAttributeCode", "attributeCode", "attributeDescription", "attributeDescriptionDetail"
] as const

type Row = Readonly<Record<string, unknown>>

interface CsvProduct extends Row {
  readonly productCode: string
  readonly barcodes: ReadonlyArray<Row>
  readonly hierarchies: ReadonlyArray<Row>
  readonly lstAttributes: ReadonlyArray<Row>
}

/** A cell: absent and null are empty; quoted when it holds the delimiter, a quote or a line break. */
export const csvCell = (value: unknown, delimiter: string): string => {
  if (value === undefined || value === null) return ""
  const text = typeof value === "string" ? value : String(value)
  return text.includes(delimiter) || /["\r\n]/.test(text) ? `"${text.replaceAll("\"", "\"\"")}"` : text
}

export const csvFilesOf = (products: ReadonlyArray<CsvProduct>, options: CsvFileOptions = {}): CsvFiles => {
  const d = options.delimiter ?? ","
  const end = options.lineEnd ?? "\n"
  const file = (columns: ReadonlyArray<string>, rows: ReadonlyArray<Row>) =>
    (options.bom === true ? "\uFEFF" : "") +
    [columns.join(d), ...rows.map((row) => columns.map((c) => csvCell(row[c], d)).join(d))].map((line) => line + end).join("")
  return {
    productsCsv: file(PRODUCT_CSV_COLUMNS, products),
    hierarchiesCsv: file(HIERARCHY_CSV_COLUMNS, products.flatMap((p) => p.hierarchies.map((h) => ({ ...h, productCode: p.productCode })))),
    barcodesCsv: file(BARCODE_CSV_COLUMNS, products.flatMap((p) => p.barcodes)),
    attributesCsv: file(ATTRIBUTE_CSV_COLUMNS, products.flatMap((p) => p.lstAttributes))
  }
}
