import { CsvHeaderError, type CsvSyntaxError } from "./CsvErrors.ts"
import type { CsvLayout } from "./CsvLayout.ts"
import { CsvReader, type CsvRow } from "./CsvReader.ts"
import { CsvHeader, type CsvRecord } from "./CsvRecords.ts"

export interface CsvRecordOptions {
  readonly maxRecordChars?: number
}

/** Reads one of the four CSV files: the first row is its header, each later row becomes a CsvRecord. */
export class CsvRecordReader {
  private readonly reader: CsvReader
  private header: CsvHeader | undefined = undefined
  private error: CsvHeaderError | undefined = undefined
  private emit: (record: CsvRecord) => void = () => undefined
  private readonly onRow = (row: CsvRow): void => {
    if (this.error !== undefined) return
    if (this.header === undefined) {
      const header = CsvHeader.resolve(this.layout, row.fields)
      if (header instanceof CsvHeaderError) this.error = header
      else this.header = header
      return
    }
    this.emit(this.header.map(row, this.reader.delimiter ?? ","))
  }

  constructor(
    readonly layout: CsvLayout,
    options: CsvRecordOptions = {}
  ) {
    this.reader = new CsvReader(options.maxRecordChars === undefined ? { file: layout.file } : { file: layout.file, maxRecordChars: options.maxRecordChars })
  }

  /** Column names present in the file but unknown to its layout, once the header is read. */
  get ignoredColumns(): ReadonlyArray<string> {
    return this.header?.ignored ?? []
  }

  push(chunk: Uint8Array, emit: (record: CsvRecord) => void): CsvSyntaxError | CsvHeaderError | undefined {
    this.emit = emit
    return this.reader.push(chunk, this.onRow) ?? this.error
  }

  end(emit: (record: CsvRecord) => void): CsvSyntaxError | CsvHeaderError | undefined {
    this.emit = emit
    const error = this.reader.end(this.onRow) ?? this.error
    if (error !== undefined) return error
    if (this.header === undefined) return new CsvHeaderError({ file: this.layout.file, reason: "the file is empty: a header row is expected" })
    return undefined
  }
}
