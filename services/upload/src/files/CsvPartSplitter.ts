import { type CsvDelimiter, CsvHeader, CsvHeaderError, type CsvLayout, CsvReader, type CsvRow, type CsvSyntaxError } from "@retail/ingest"
import type { StorageFailed } from "@retail/api"
import { Effect, Stream } from "effect"
import { encodePartitionRow, encodeUnquotedRow, fieldAt, holdsSeparatorBytes } from "./CsvPartitionRow.ts"
import { type CsvPartitions, partitionOf } from "./CsvPartitions.ts"

/** What the join needs of a file once it was read: its checked header and its delimiter. */
export interface CsvFileHeader {
  readonly header: CsvHeader
  readonly delimiter: CsvDelimiter
  /** The header row as read: a join worker resolves its own `CsvHeader` from it. */
  readonly fields: ReadonlyArray<string>
}

/**
 * Reads one of the four CSV files as it streams in: checks its header, then queues each data row,
 * untyped, to the partition of its productCode. A record without quotes is queued as its own text,
 * not even split into fields (all but its productCode); typing the cells waits for the join.
 */
export class CsvPartSplitter {
  private readonly reader: CsvReader
  private header: CsvHeader | undefined = undefined
  private headerFields: ReadonlyArray<string> = []
  private codeIndex = 0
  private error: CsvHeaderError | undefined = undefined
  private mayHoldSeparators = false
  private readonly onRow = (row: CsvRow): void => {
    if (this.error !== undefined) return
    if (this.header === undefined) {
      const header = CsvHeader.resolve(this.layout, row.fields)
      if (header instanceof CsvHeaderError) {
        this.error = header
        return
      }
      this.header = header
      this.headerFields = row.fields
      this.codeIndex = header.positionOf("productCode")
      return
    }
    const code = row.fields[this.codeIndex] ?? ""
    this.partitions.add(partitionOf(code, this.partitions.count), encodePartitionRow(this.layout.file, row, this.mayHoldSeparators))
  }
  private readonly onUnquoted = (line: number, text: string): void => {
    if (this.header === undefined) {
      this.onRow({ line, fields: text.split(this.reader.delimiter ?? ",") })
      return
    }
    if (this.error !== undefined) return
    const code = fieldAt(text, 0, this.reader.delimiter ?? ",", this.codeIndex)
    this.partitions.add(partitionOf(code, this.partitions.count), encodeUnquotedRow(this.layout.file, line, text))
  }

  constructor(
    readonly layout: CsvLayout,
    private readonly partitions: Pick<CsvPartitions, "add" | "count">
  ) {
    this.reader = new CsvReader({ file: layout.file })
  }

  push(chunk: Uint8Array): CsvSyntaxError | CsvHeaderError | undefined {
    if (!this.mayHoldSeparators && holdsSeparatorBytes(chunk)) this.mayHoldSeparators = true
    return this.reader.push(chunk, this.onRow, this.onUnquoted) ?? this.error
  }

  end(): CsvFileHeader | CsvSyntaxError | CsvHeaderError {
    const error = this.reader.end(this.onRow, this.onUnquoted) ?? this.error
    if (error !== undefined) return error
    if (this.header === undefined) return new CsvHeaderError({ file: this.layout.file, reason: "the file is empty: a header row is expected" })
    return { header: this.header, delimiter: this.reader.delimiter ?? ",", fields: this.headerFields }
  }
}

/** Streams one CSV file into the partitions; fails on a bad header or an unreadable file, before the join sees anything. */
export const partitionCsvFile = <E, R>(content: Stream.Stream<Uint8Array, E, R>, layout: CsvLayout, partitions: CsvPartitions) =>
  Effect.suspend(() => {
    const splitter = new CsvPartSplitter(layout, partitions)
    return content.pipe(
      Stream.runForEachChunk((chunks): Effect.Effect<void, StorageFailed | CsvSyntaxError | CsvHeaderError> => {
        for (const chunk of chunks) {
          const error = splitter.push(chunk)
          if (error !== undefined) return Effect.fail(error)
        }
        return partitions.flushIfFull
      }),
      Effect.zipRight(Effect.suspend(() => {
        const ended = splitter.end()
        return "_tag" in ended ? Effect.fail(ended) : Effect.succeed(ended)
      }))
    )
  })
