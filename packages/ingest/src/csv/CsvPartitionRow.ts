import { type CsvDelimiter, type CsvRow, splitCsvLine } from "./CsvReader.ts"
import type { CsvFileName } from "./CsvLayout.ts"

/** One letter per CSV file in a partition file. */
const KIND: Readonly<Record<CsvFileName, string>> = { productsCsv: "P", hierarchiesCsv: "H", barcodesCsv: "B", attributesCsv: "A" }
const FILE_OF: Readonly<Record<string, CsvFileName>> = { P: "productsCsv", H: "hierarchiesCsv", B: "barcodesCsv", A: "attributesCsv" }

/** Group separator before a record's own text; unit separator between fields; record separator before a JSON-encoded row. */
const GS = "\x1d"
const US = "\x1f"
const RS = "\x1e"

export interface PartitionRow {
  readonly file: CsvFileName
  readonly row: CsvRow
}

/**
 * A record that is one well-formed line (quoted fields or not) as one line of a partition file:
 * `<kind><line>` U+001D then the record's text as it was in the file, without its line end (it holds
 * no line break: only a quoted field can). Its fields are split (`splitCsvLine`, with the file's
 * delimiter) when the partition is joined; the split copies the bytes, never decodes nor re-encodes them.
 */
export const encodeLineRow = (file: CsvFileName, line: number, text: string): string => `${lineRowPrefix(file, line)}${text}\n`

/** The letter of `file`'s rows, as an ASCII code. */
export const lineRowKind = (file: CsvFileName): number => KIND[file].charCodeAt(0)

/** What `encodeLineRow` writes before the record's text. */
export const lineRowPrefix = (file: CsvFileName, line: number): string => `${KIND[file]}${line}${GS}`

/**
 * Any other CSV row as one line of a partition file: `<kind><line>` then the fields joined by U+001F,
 * or, when a field could hold a separator or a line break (or the row has a fault), U+001E and
 * the row as JSON. Joining is several times cheaper than JSON for the common row.
 * `mayHoldSeparators`: the input seen so far contained U+001E or U+001F.
 */
export const encodePartitionRow = (file: CsvFileName, row: CsvRow, mayHoldSeparators: boolean): string => {
  if (!mayHoldSeparators && row.fault === undefined) {
    const joined = row.fields.join(US)
    if (joined.indexOf("\n") === -1) return `${KIND[file]}${row.line}${US}${joined}\n`
  }
  const json = row.fault === undefined ? JSON.stringify([row.fields]) : JSON.stringify([row.fields, row.fault])
  return `${KIND[file]}${row.line}${RS}${json}\n`
}

/** Index of the separator after the line number. */
const separatorAt = (text: string): number => {
  let i = 1
  while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++
  return i
}

const isStringArray = (value: unknown): value is Array<string> => Array.isArray(value) && value.every((v) => typeof v === "string")

/** The inverse of the encoders (`delimiter`: the delimiter of the row's file); undefined for a line they did not write. */
export const decodePartitionRow = (text: string, delimiter: CsvDelimiter): PartitionRow | undefined => {
  const file = FILE_OF[text.charAt(0)]
  if (file === undefined) return undefined
  const i = separatorAt(text)
  const line = Number(text.slice(1, i))
  const separator = text.charAt(i)
  if (separator === GS) {
    const fields = splitCsvLine(text.slice(i + 1), delimiter)
    return fields === undefined ? undefined : { file, row: { line, fields } }
  }
  if (separator === US) return { file, row: { line, fields: text.slice(i + 1).split(US) } }
  if (separator !== RS) return undefined
  const parsed: unknown = JSON.parse(text.slice(i + 1))
  if (!Array.isArray(parsed) || !isStringArray(parsed[0])) return undefined
  const fault: unknown = parsed[1]
  return { file, row: typeof fault === "string" ? { line, fields: parsed[0], fault } : { line, fields: parsed[0] } }
}

/** Field `index` of `text` from `from` on, fields separated by `separator`; "" past the last field. */
export const fieldAt = (text: string, from: number, separator: string, index: number): string => {
  let start = from
  for (let k = 0; k < index; k++) {
    const next = text.indexOf(separator, start)
    if (next === -1) return ""
    start = next + 1
  }
  const end = text.indexOf(separator, start)
  return text.slice(start, end === -1 ? text.length : end)
}

/** Where field `index` of `text` from `from` on ends (fields separated by `separator`); text.length past the last field. */
const fieldEndAt = (text: string, from: number, separator: string, index: number): number => {
  let start = from
  for (let k = 0; k < index; k++) {
    const next = text.indexOf(separator, start)
    if (next === -1) return text.length
    start = next + 1
  }
  const end = text.indexOf(separator, start)
  return end === -1 ? text.length : end
}

/** Field `index` of an encoded row (`delimiter`: of the row's file), "" when the row has fewer fields: what the join groups by. */
export const fieldOfPartitionRow = (text: string, index: number, delimiter: CsvDelimiter): string => {
  const i = separatorAt(text)
  const kind = text.charAt(i)
  if (kind === US) return fieldAt(text, i + 1, US, index)
  if (kind === GS) {
    // A line's quotes matter only when one comes before the end of the field, as its delimiters place it.
    const quote = text.indexOf("\"", i + 1)
    if (quote === -1 || quote > fieldEndAt(text, i + 1, delimiter, index)) return fieldAt(text, i + 1, delimiter, index)
  }
  return decodePartitionRow(text, delimiter)?.row.fields[index] ?? ""
}

const KIND_BYTES: ReadonlyArray<CsvFileName | undefined> = (() => {
  const files: Array<CsvFileName | undefined> = new Array(256).fill(undefined)
  for (const [letter, file] of Object.entries(FILE_OF)) files[letter.charCodeAt(0)] = file
  return files
})()
const GS_BYTE = 0x1d
const US_BYTE = 0x1f
const QUOTE_BYTE = 34

/** The file a partition line (starting at `bytes[start]`) holds a row of; undefined for a line the encoders did not write. */
export const fileOfPartitionRowBytes = (bytes: Uint8Array, start: number): CsvFileName | undefined => KIND_BYTES[bytes[start] ?? 0]

/** Index of the separator after the line number of the line bytes[start, end). */
const separatorAtBytes = (bytes: Uint8Array, start: number, end: number): number => {
  let i = start + 1
  while (i < end && bytes[i]! >= 48 && bytes[i]! <= 57) i++
  return i
}

/** The CSV line number of the encoded row bytes[start, end). */
export const lineOfPartitionRowBytes = (bytes: Uint8Array, start: number, end: number): number => {
  let line = 0
  for (let i = start + 1; i < end && bytes[i]! >= 48 && bytes[i]! <= 57; i++) line = 10 * line + bytes[i]! - 48
  // 0 for a line without a number: one the encoders did not write.
  return line
}

/** Where the record's own text starts in the line bytes[start, end) if `encodeLineRow` wrote it; -1 for a row of another encoding. */
export const lineRowTextAtBytes = (bytes: Uint8Array, start: number, end: number): number => {
  const i = separatorAtBytes(bytes, start, end)
  return i < end && bytes[i] === GS_BYTE ? i + 1 : -1
}

/** A field's place in a line: bytes[start, end). */
export interface FieldSpan {
  start: number
  end: number
}

/**
 * `fieldOfPartitionRow` of the line bytes[start, end) when its bytes tell it without decoding (a
 * one-line record whose quotes, if any, come after the field; a row of fields joined by U+001F): the
 * field's bytes into `span` (empty past the last field) and true; false when the line must be decoded.
 */
export const fieldSpanOfPartitionRow = (bytes: Uint8Array, start: number, end: number, index: number, delimiter: CsvDelimiter, span: FieldSpan): boolean => {
  const i = separatorAtBytes(bytes, start, end)
  if (i === end) return false
  const kind = bytes[i]
  if (kind !== GS_BYTE && kind !== US_BYTE) return false
  const separator = kind === US_BYTE ? US_BYTE : delimiter === ";" ? 59 : 44
  // The delimiters place the field; a quote before its end would make them lie (checked only in a one-line record).
  const quotes = kind === GS_BYTE
  let p = i + 1
  for (let k = 0; ; k++) {
    let e = p
    while (e < end && bytes[e] !== separator) {
      if (quotes && bytes[e] === QUOTE_BYTE) return false
      e++
    }
    if (k === index) {
      span.start = p
      span.end = e
      return true
    }
    if (e === end) {
      span.start = end
      span.end = end
      return true
    }
    p = e + 1
  }
}

/** Does this chunk of input hold a byte that could be mistaken for a separator of the encoding? */
export const holdsSeparatorBytes = (chunk: Uint8Array): boolean => chunk.indexOf(0x1e) !== -1 || chunk.indexOf(0x1f) !== -1
