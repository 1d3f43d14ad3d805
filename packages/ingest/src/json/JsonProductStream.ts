import type { Stream } from "effect"
import { parseByteStream } from "../ByteParserStream.ts"
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
    parseByteStream(() => new JsonProductScanner(options), bytes)
