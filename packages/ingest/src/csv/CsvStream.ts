import type { Stream } from "effect"
import { parseByteStream } from "../ByteParserStream.ts"
import type { CsvHeaderError, CsvSyntaxError } from "./CsvErrors.ts"
import type { CsvLayout } from "./CsvLayout.ts"
import { type CsvReadOptions, CsvReader, type CsvRow } from "./CsvReader.ts"
import { type CsvRecordOptions, CsvRecordReader } from "./CsvRecordReader.ts"
import type { CsvRecord } from "./CsvRecords.ts"

/** Raw CSV rows (header included) of a byte stream. */
export const readCsvRows =
  (options?: CsvReadOptions) =>
  <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<CsvRow, E | CsvSyntaxError, R> =>
    parseByteStream(() => new CsvReader(options), bytes)

/** Typed records of one of the four CSV files; fails on a bad header or an unreadable file. */
export const readCsvRecords =
  (layout: CsvLayout, options?: CsvRecordOptions) =>
  <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<CsvRecord, E | CsvSyntaxError | CsvHeaderError, R> =>
    parseByteStream(() => new CsvRecordReader(layout, options), bytes)
