import { Product } from "@retail/domain"
import { JsonProductScanner, type ScannedProduct } from "@retail/ingest"
import { Schema } from "effect"
import { createReadStream } from "node:fs"

const decodeProduct = Schema.decodeUnknownSync(Product, { onExcessProperty: "ignore" })

/**
 * The products of a `{"products":[...]}` file, decoded, read as a stream through the service's own
 * scanner: a file of a million products (1.8 GB) is longer than the longest string V8 makes, so it
 * cannot be read as one text.
 */
export const readProductsFile = async (path: string): Promise<Array<Product>> => {
  const scanner = new JsonProductScanner()
  const products: Array<Product> = []
  const emit = (scanned: ScannedProduct): void => {
    products.push(decodeProduct(scanned.value))
  }
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) {
    if (!Buffer.isBuffer(chunk)) throw new Error(`${path}: read as text, not bytes`)
    const fault = scanner.push(chunk, emit)
    if (fault !== undefined) throw new Error(`${path}: ${fault.message}`)
  }
  const fault = scanner.end()
  if (fault !== undefined) throw new Error(`${path}: ${fault.message}`)
  return products
}
