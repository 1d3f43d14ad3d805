import { CsvByteReader, type CsvDelimiter, type CsvFileHeader, CsvHeader, CsvHeaderError, type CsvLayout, type CsvRow, type CsvSyntaxError, encodePartitionRow, holdsSeparatorBytes, lineRowKind, splitCsvLine } from "@retail/ingest"
import type { StorageFailed } from "@retail/api"
import { Effect, Stream } from "effect"
import { type CsvPartitions, partitionOf, partitionOfBytes } from "./CsvPartitions.ts"

const QUOTE = 34

/**
 * Reads one of the four CSV files as it streams in: checks its header, then queues each data row,
 * untyped, to the partition of its productCode. A record that is one well-formed line (nearly all)
 * is queued as its own bytes, never decoded nor split into fields (only its productCode is looked
 * at); typing the cells waits for the join.
 */
export class CsvPartSplitter {
  private readonly reader: CsvByteReader
  private header: CsvHeader | undefined = undefined
  private headerFields: ReadonlyArray<string> = []
  private codeIndex = 0
  private error: CsvHeaderError | undefined = undefined
  private mayHoldSeparators = false
  private readonly kind: number
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
      this.reader.field = this.codeIndex
      return
    }
    const code = row.fields[this.codeIndex] ?? ""
    this.partitions.add(partitionOf(code, this.partitions.count), encodePartitionRow(this.layout.file, row, this.mayHoldSeparators))
  }
  private readonly onLine = (line: number, bytes: Uint8Array, start: number, end: number, fieldStart: number, fieldEnd: number): void => {
    if (this.error !== undefined) return
    const delimiter = this.reader.delimiter ?? ","
    if (this.header === undefined) {
      this.onRow({ line, fields: splitCsvLine(Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString("utf8"), delimiter) ?? [] })
      return
    }
    const partition = fieldStart === -1
      ? partitionOf("", this.partitions.count)
      : bytes[fieldStart] === QUOTE
      ? this.partitionOfLine(bytes, start, end, delimiter)
      : partitionOfBytes(bytes, fieldStart, fieldEnd, this.partitions.count)
    this.partitions.addLine(partition, this.kind, line, bytes, start, end)
  }

  /** The slow way, for a quoted productCode: the line's fields. */
  private partitionOfLine(bytes: Uint8Array, start: number, end: number, delimiter: CsvDelimiter): number {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString("utf8")
    return partitionOf(splitCsvLine(text, delimiter)?.[this.codeIndex] ?? "", this.partitions.count)
  }

  constructor(
    readonly layout: CsvLayout,
    private readonly partitions: Pick<CsvPartitions, "add" | "addLine" | "count">
  ) {
    this.reader = new CsvByteReader({ file: layout.file, field: 0 })
    this.kind = lineRowKind(layout.file)
  }

  push(chunk: Uint8Array): CsvSyntaxError | CsvHeaderError | undefined {
    if (!this.mayHoldSeparators && holdsSeparatorBytes(chunk)) this.mayHoldSeparators = true
    return this.reader.push(chunk, this.onRow, this.onLine) ?? this.error
  }

  end(): CsvFileHeader | CsvSyntaxError | CsvHeaderError {
    const error = this.reader.end(this.onRow, this.onLine) ?? this.error
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
      Stream.runForEachArray((chunks): Effect.Effect<void, StorageFailed | CsvSyntaxError | CsvHeaderError> => {
        for (const chunk of chunks) {
          const error = splitter.push(chunk)
          if (error !== undefined) return Effect.fail(error)
        }
        return partitions.flushIfFull
      }),
      Effect.andThen(Effect.suspend(() => {
        const ended = splitter.end()
        return "_tag" in ended ? Effect.fail(ended) : Effect.succeed(ended)
      }))
    )
  })
