/** What a file yields per product: its raw value to validate, or a failure found while reading it (CSV rows). */
export type FileProduct =
  | {
    readonly _tag: "Product"
    readonly index: number
    readonly value: unknown
    /** The product's JSON exactly as the upload held it (JSON files): spooled as is when it declares nothing unknown. */
    readonly json?: Uint8Array
    /** Adds where the product came from to a validation failure (CSV files and lines). */
    readonly locate?: (error: string) => string
  }
  | { readonly _tag: "Failed"; readonly sku: string; readonly error: string }

export const productItem = (index: number, value: unknown, json?: Uint8Array): FileProduct =>
  json === undefined ? { _tag: "Product", index, value } : { _tag: "Product", index, value, json }
export const failedItem = (sku: string, error: string): FileProduct => ({ _tag: "Failed", sku, error })
