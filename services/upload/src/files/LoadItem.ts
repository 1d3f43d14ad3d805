/** What a file yields per product: its raw value to validate, or a failure found while reading it (CSV rows). */
export type LoadItem =
  | {
    readonly _tag: "Product"
    readonly index: number
    readonly value: unknown
    /** Adds where the product came from to a validation failure (CSV files and lines). */
    readonly locate?: (error: string) => string
  }
  | { readonly _tag: "Failed"; readonly sku: string; readonly error: string }

export const productItem = (index: number, value: unknown): LoadItem => ({ _tag: "Product", index, value })
export const failedItem = (sku: string, error: string): LoadItem => ({ _tag: "Failed", sku, error })
