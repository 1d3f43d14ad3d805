import { Effect, Stream } from "effect"
import { type JsonScanOptions, JsonProductScanner, type ScannedProduct } from "./JsonProductScanner.ts"
import type { JsonSyntaxError } from "./JsonSyntaxError.ts"

/**
 * Splits a products JSON file, given as a byte stream, into its products. The stream fails with
 * JsonSyntaxError as soon as the file is known to be malformed, at the latest when the input ends:
 * products already emitted must not be treated as a complete load until the stream has ended.
 */
export const scanJsonProducts =
  (options?: JsonScanOptions) =>
  <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<ScannedProduct, E | JsonSyntaxError, R> =>
    Stream.suspend(() => {
      const scanner = new JsonProductScanner(options)
      // mapAccumArrayEffect, not mapArrayEffect: a chunk of bytes may complete no product at all.
      const products = Stream.mapAccumArrayEffect(bytes, () => scanner, (state, chunks) => {
        const out: Array<ScannedProduct> = []
        const emit = (product: ScannedProduct): void => {
          out.push(product)
        }
        for (const chunk of chunks) {
          const error = state.push(chunk, emit)
          if (error !== undefined) return Effect.fail(error)
        }
        return Effect.succeed([state, out] as const)
      })
      const ending = Stream.suspend(() => {
        const error = scanner.end()
        return error === undefined ? Stream.empty : Stream.fail(error)
      })
      return Stream.concat(products, ending)
    })
