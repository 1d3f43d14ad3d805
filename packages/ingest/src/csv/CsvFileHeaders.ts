import type { CsvDelimiter } from "./CsvReader.ts"
import type { CsvFileName } from "./CsvLayout.ts"
import type { CsvHeader } from "./CsvRecords.ts"

/** What the join needs of a file once it was read: its checked header and its delimiter. */
export interface CsvFileHeader {
  readonly header: CsvHeader
  readonly delimiter: CsvDelimiter
  /** The header row as read: a join worker resolves its own `CsvHeader` from it. */
  readonly fields: ReadonlyArray<string>
}

/** The four files' headers, as the join reads them. */
export type CsvFileHeaders = Readonly<Record<CsvFileName, CsvFileHeader>>
