import { Schema } from "effect"

/**
 * Why a JSON products file was rejected as a whole. `offset` is 0-based in bytes from the start of
 * the file; `line` and `column` are 1-based, the column counted in bytes from the start of the line.
 */
export class JsonSyntaxError extends Schema.TaggedError<JsonSyntaxError>()("JsonSyntaxError", {
  kind: Schema.Literals(["syntax", "truncated", "encoding", "empty", "structure", "too-large"]),
  reason: Schema.String,
  offset: Schema.Number,
  line: Schema.Number,
  column: Schema.Number
}) {
  override get message(): string {
    return `${this.reason} at byte ${this.offset} (line ${this.line}, column ${this.column})`
  }
}

export type JsonErrorKind = JsonSyntaxError["kind"]

/** Printable description of the character starting at bytes[i], for error reasons. */
export const describeChar = (bytes: Uint8Array, i: number): string => {
  const b = bytes[i]
  if (b === undefined) return "end of input"
  if (b >= 0x21 && b < 0x7f) return `'${String.fromCharCode(b)}'`
  if (b < 0x80) return `control character 0x${b.toString(16).padStart(2, "0")}`
  const text = Buffer.from(bytes.buffer, bytes.byteOffset + i, Math.min(4, bytes.length - i)).toString("utf8")
  const cp = text.codePointAt(0)
  return cp === undefined || cp === 0xfffd ? `byte 0x${b.toString(16)}` : `'${String.fromCodePoint(cp)}'`
}
