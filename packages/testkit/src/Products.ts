/** Products shaped like a real retailer's feed (about 1.6 KB of JSON each), deterministic by index. */
export interface SampleProductOptions {
  readonly company?: string | null
  readonly prefix?: string
}

const pad = (n: number, width: number) => String(n).padStart(width, "0")

export const sampleProduct = (index: number, options: SampleProductOptions = {}) => {
  const productCode = `${options.prefix ?? "P"}${pad(index, 8)}`
  const ean = `775${pad(index, 10)}`
  return {
    productCode,
    skuCode: `SKU-${productCode}`,
    eanCode: ean,
    description: `Cordless drill 18V with two batteries and carry case, model ${index}`,
    price: 199.9 + (index % 100),
    length: 30.5,
    width: 12,
    height: 25.25,
    weight: 1.8,
    productType: "HARDWARE",
    dispatchType: index % 3 === 0 ? "EXPRESS" : "NORMAL",
    unitMeasurement: "UN",
    unitedNationsCode: "46101500",
    hierarchyCode: "H-TOOLS-POWER",
    companyCode: options.company === undefined ? null : options.company,
    taxSale: "T",
    taxSelective: null,
    salesTax: 18,
    productPmmStatus: "5",
    dateUpdate: "2026-11-20 10:15:00",
    isEcommerce: "T",
    measurable: "F",
    skuCodePlatform: `VTEX-${index}`,
    conversionFactor: 1,
    barcodes: [
      { productCode, eanCode: ean, indicator: "MAIN" },
      { productCode, eanCode: `${ean}9`, indicator: "ALT" }
    ],
    hierarchies: [
      { hierarchyCode: "H-TOOLS", hierarchyLevel: 1, hierarchyName: "Tools", hierarchyDescription: "Tools and hardware", hierarchyBreadcrumb: null },
      {
        hierarchyCode: "H-TOOLS-POWER",
        hierarchyLevel: 2,
        hierarchyParent: "H-TOOLS",
        hierarchyName: "Power tools",
        hierarchyDescription: "Electric and cordless power tools",
        hierarchyBreadcrumb: "Tools > Power tools"
      }
    ],
    lstAttributes: [
      { attributeType: "SPEC", parentAttributeCode: "VOLT", attributeCode: "VOLT-18", attributeDescription: "Voltage", productCode, attributeDescriptionDetail: "18 V" },
      { attributeType: "SPEC", parentAttributeCode: "BAT", attributeCode: "BAT-2", attributeDescription: "Batteries included", productCode, attributeDescriptionDetail: "2 x 2.0 Ah" },
      { attributeType: "FREIGHT", parentAttributeCode: "FRAGILE", attributeCode: "FRAGILE-N", attributeDescription: "Fragile", productCode }
    ]
  }
}

export type SampleProduct = ReturnType<typeof sampleProduct>

export const sampleProducts = (count: number, options: SampleProductOptions & { readonly from?: number } = {}) =>
  Array.from({ length: count }, (_, i) => sampleProduct((options.from ?? 0) + i, options))
