import type { CsvFileName, CsvRow } from "@retail/ingest"

/** One letter per CSV file in a partition file. */
const KIND: Readonly<Record<CsvFileName, string>> = { productsCsv: "P", hierarchiesCsv: "H", barcodesCsv: "B", attributesCsv: "A" }
const FILE_OF: Readonly<Record<string, CsvFileName>> = { P: "productsCsv", H: "hierarchiesCsv", B: "barcodesCsv", A: "attributesCsv" }

/** Unit separator between fields; record separator before a JSON-encoded row. */
const US = "\x1f"
const RS = "\x1e"

export interface PartitionRow {
  readonly file: CsvFileName
  readonly row: CsvRow
}

/**
 * One CSV row as one line of a partition file: `<kind><line>` then the fields joined by U+001F,
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

const isStringArray = (value: unknown): value is Array<string> => Array.isArray(value) && value.every((v) => typeof v === "string")

/** The inverse of encodePartitionRow; undefined for a line it did not write. */
export const decodePartitionRow = (text: string): PartitionRow | undefined => {
  const file = FILE_OF[text.charAt(0)]
  if (file === undefined) return undefined
  let i = 1
  while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++
  const line = Number(text.slice(1, i))
  const separator = text.charAt(i)
  if (separator === US) return { file, row: { line, fields: text.slice(i + 1).split(US) } }
  if (separator !== RS) return undefined
  const parsed: unknown = JSON.parse(text.slice(i + 1))
  if (!Array.isArray(parsed) || !isStringArray(parsed[0])) return undefined
  const fault: unknown = parsed[1]
  return { file, row: typeof fault === "string" ? { line, fields: parsed[0], fault } : { line, fields: parsed[0] } }
}

/** Does this chunk of input hold a byte that could be mistaken for a separator of the encoding? */
export const holdsSeparatorBytes = (chunk: Uint8Array): boolean => chunk.indexOf(0x1e) !== -1 || chunk.indexOf(0x1f) !== -1
