/** Multipart part names of the four CSV files of /handle-csv; errors name the file by them. */
export type CsvFileName = "productsCsv" | "hierarchiesCsv" | "barcodesCsv" | "attributesCsv"

export type CsvFieldType = "string" | "number" | "integer"

export interface CsvColumn {
  readonly name: string
  readonly type: CsvFieldType
  /** The header must have this column (a required field of the spec's table). */
  readonly required: boolean
  /** An empty cell becomes null rather than an absent field. */
  readonly nullable: boolean
}

export interface CsvLayout {
  readonly file: CsvFileName
  readonly columns: ReadonlyArray<CsvColumn>
}

const col = (name: string, type: CsvFieldType, required: boolean, nullable = false): CsvColumn => ({ name, type, required, nullable })
const req = (name: string, type: CsvFieldType = "string"): CsvColumn => col(name, type, true)
const opt = (name: string, type: CsvFieldType = "string"): CsvColumn => col(name, type, false)
const nul = (name: string, type: CsvFieldType = "string"): CsvColumn => col(name, type, false, true)

/** products.csv: the scalar fields of Product (barcodes, hierarchies, lstAttributes come from the other files). */
export const ProductsCsv: CsvLayout = {
  file: "productsCsv",
  columns: [
    req("productCode"), req("skuCode"), req("eanCode"), req("description"),
    req("price", "number"), req("length", "number"), req("width", "number"), req("height", "number"), req("weight", "number"),
    req("productType"), nul("dispatchType"), req("unitMeasurement"), req("unitedNationsCode"), req("hierarchyCode"),
    nul("companyCode"), req("taxSale"), nul("taxSelective", "number"), nul("salesTax", "number"), req("productPmmStatus"),
    req("dateUpdate"), req("isEcommerce"), req("measurable"), nul("skuCodePlatform"), req("conversionFactor", "integer")
  ]
}

/** hierarchies.csv: the Hierarchy table plus productCode to join on. */
export const HierarchiesCsv: CsvLayout = {
  file: "hierarchiesCsv",
  columns: [
    req("productCode"), req("hierarchyCode"), req("hierarchyLevel", "integer"), opt("hierarchyParent"), opt("hierarchyName"),
    opt("hierarchyDescription"), nul("hierarchyBreadcrumb")
  ]
}

/** barcodes.csv: the Barcode table (it already has productCode). */
export const BarcodesCsv: CsvLayout = {
  file: "barcodesCsv",
  columns: [req("productCode"), req("eanCode"), req("indicator")]
}

/** attributes.csv: the Attribute table (it already has productCode). */
export const AttributesCsv: CsvLayout = {
  file: "attributesCsv",
  columns: [
    req("productCode"), req("attributeType"), req("parentAttributeCode"), req("attributeCode"), req("attributeDescription"),
    opt("attributeDescriptionDetail")
  ]
}

export const CsvLayouts: Readonly<Record<CsvFileName, CsvLayout>> = {
  productsCsv: ProductsCsv,
  hierarchiesCsv: HierarchiesCsv,
  barcodesCsv: BarcodesCsv,
  attributesCsv: AttributesCsv
}
