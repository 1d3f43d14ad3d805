import { JsonProductScanner, type JsonScanOptions, type ScannedProduct } from "../../src/json/JsonProductScanner.ts"
import type { JsonSyntaxError } from "../../src/json/JsonSyntaxError.ts"

export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text)

export interface ScanResult {
  readonly products: ReadonlyArray<ScannedProduct>
  readonly error: JsonSyntaxError | undefined
}

/** Feeds `input` cut at the given offsets (sorted, within bounds) and ends it. */
export const scanCut = (input: Uint8Array, cuts: ReadonlyArray<number>, options?: JsonScanOptions): ScanResult => {
  const scanner = new JsonProductScanner(options)
  const products: Array<ScannedProduct> = []
  let from = 0
  for (const to of [...cuts, input.length]) {
    const error = scanner.push(input.subarray(from, to), (p) => products.push(p))
    if (error !== undefined) return { products, error }
    from = to
  }
  return { products, error: scanner.end() }
}

export const scan = (input: Uint8Array | string, chunkSize = input.length || 1, options?: JsonScanOptions): ScanResult => {
  const b = typeof input === "string" ? bytes(input) : input
  const cuts: Array<number> = []
  for (let i = chunkSize; i < b.length; i += chunkSize) cuts.push(i)
  return scanCut(b, cuts, options)
}

export const values = (r: ScanResult): ReadonlyArray<unknown> => r.products.map((p) => p.value)
