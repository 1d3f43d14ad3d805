import { Effect, Stream } from "effect"
import type { CsvHeaderError, CsvSyntaxError } from "./CsvErrors.ts"
import type { CsvLayout } from "./CsvLayout.ts"
import { type CsvReadOptions, CsvReader, type CsvRow } from "./CsvReader.ts"
import { type CsvRecordOptions, CsvRecordReader } from "./CsvRecordReader.ts"
import type { CsvRecord } from "./CsvRecords.ts"

interface Pushable<A, Err> {
  push(chunk: Uint8Array, emit: (a: A) => void): Err | undefined
  end(emit: (a: A) => void): Err | undefined
}

const drive = <A, Err, E, R>(make: () => Pushable<A, Err>, bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<A, E | Err, R> =>
  Stream.suspend(() => {
    const parser = make()
    // mapAccumArrayEffect, not mapArrayEffect: a chunk of bytes may complete no row at all.
    const body = Stream.mapAccumArrayEffect(bytes, () => parser, (state, chunks) => {
      const out: Array<A> = []
      const emit = (a: A): void => {
        out.push(a)
      }
      for (const chunk of chunks) {
        const error = state.push(chunk, emit)
        if (error !== undefined) return Effect.fail(error)
      }
      return Effect.succeed([state, out] as const)
    })
    const ending = Stream.suspend(() => {
      const out: Array<A> = []
      const error = parser.end((a) => out.push(a))
      return error === undefined ? Stream.fromIterable(out) : Stream.fail(error)
    })
    return Stream.concat(body, ending)
  })

/** Raw CSV rows (header included) of a byte stream. */
export const readCsvRows =
  (options?: CsvReadOptions) =>
  <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<CsvRow, E | CsvSyntaxError, R> =>
    drive(() => new CsvReader(options), bytes)

/** Typed records of one of the four CSV files; fails on a bad header or an unreadable file. */
export const readCsvRecords =
  (layout: CsvLayout, options?: CsvRecordOptions) =>
  <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<CsvRecord, E | CsvSyntaxError | CsvHeaderError, R> =>
    drive(() => new CsvRecordReader(layout, options), bytes)
