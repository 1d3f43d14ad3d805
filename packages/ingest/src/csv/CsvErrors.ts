import { Schema } from "effect"

/** A CSV file that cannot be read to its end: invalid UTF-8, an unclosed quote at end of file, a record over the size limit. */
export class CsvSyntaxError extends Schema.TaggedError<CsvSyntaxError>()("CsvSyntaxError", {
  file: Schema.String,
  line: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return `${this.file} line ${this.line}: ${this.reason}`
  }
}

/** A header row that does not fit the file's column layout (a required column missing, a column twice, no header at all). */
export class CsvHeaderError extends Schema.TaggedError<CsvHeaderError>()("CsvHeaderError", {
  file: Schema.String,
  column: Schema.optional(Schema.String),
  reason: Schema.String
}) {
  override get message(): string {
    return `${this.file} header: ${this.reason}`
  }
}
