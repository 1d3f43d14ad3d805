import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { CsvByteReader } from "../../src/csv/CsvByteReader.ts"
import { CsvReader, type CsvRow, splitCsvLine } from "../../src/csv/CsvReader.ts"

const encoder = new TextEncoder()
const decoder = new TextDecoder("utf-8", { ignoreBOM: true })

interface Read {
  readonly rows: ReadonlyArray<CsvRow>
  readonly error: string | undefined
  readonly delimiter: string | undefined
}

const piecesOf = (input: Uint8Array, cuts: ReadonlyArray<number>): Array<Uint8Array> => {
  const sorted = [...cuts].sort((a, b) => a - b)
  const pieces: Array<Uint8Array> = []
  let from = 0
  for (const to of [...sorted, input.length]) {
    pieces.push(input.subarray(from, to))
    from = to
  }
  return pieces
}

const withReader = (pieces: ReadonlyArray<Uint8Array>): Read => {
  const reader = new CsvReader({ file: "attributesCsv", maxRecordChars: 40 })
  const rows: Array<CsvRow> = []
  const emit = (row: CsvRow): void => {
    rows.push(row)
  }
  for (const piece of pieces) {
    const error = reader.push(piece, emit)
    if (error !== undefined) return { rows, error: error.message, delimiter: reader.delimiter }
  }
  return { rows, error: reader.end(emit)?.message, delimiter: reader.delimiter }
}

/** CsvByteReader's rows, a line's fields split from its bytes; also checks that the field it points at is that field. */
const withByteReader = (pieces: ReadonlyArray<Uint8Array>, field: number): Read & { readonly lines: number } => {
  const reader = new CsvByteReader({ file: "attributesCsv", maxRecordChars: 40, field })
  const rows: Array<CsvRow> = []
  let lines = 0
  const emit = (row: CsvRow): void => {
    rows.push(row)
  }
  const emitLine = (line: number, bytes: Uint8Array, start: number, end: number, fieldStart: number, fieldEnd: number): void => {
    lines++
    const fields = splitCsvLine(decoder.decode(bytes.subarray(start, end)), reader.delimiter ?? ",")
    if (fields === undefined) throw new Error(`line ${line} was handed on but does not split`)
    const raw = fieldStart === -1 ? undefined : decoder.decode(bytes.subarray(fieldStart, fieldEnd))
    expect(raw === undefined ? undefined : splitCsvLine(raw, reader.delimiter ?? ",")?.join(reader.delimiter ?? ",")).toEqual(fields[field])
    rows.push({ line, fields })
  }
  for (const piece of pieces) {
    const error = reader.push(piece, emit, emitLine)
    if (error !== undefined) return { rows, error: error.message, delimiter: reader.delimiter, lines }
  }
  const error = reader.end(emit, emitLine)
  return { rows, error: error?.message, delimiter: reader.delimiter, lines }
}

const bytesOf = (...parts: ReadonlyArray<string | ReadonlyArray<number>>): Uint8Array => {
  const arrays = parts.map((part) => typeof part === "string" ? encoder.encode(part) : Uint8Array.from(part))
  const joined = new Uint8Array(arrays.reduce((sum, a) => sum + a.length, 0))
  let at = 0
  for (const a of arrays) {
    joined.set(a, at)
    at += a.length
  }
  return joined
}

/** Text made of the characters that matter to CSV, now and then a byte that is not UTF-8, cut anywhere. */
const tokens = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom("a", "b1", "é", "€", "𝄞", " ", ",", ";", "\"", "\"\"", "\n", "\r\n", "\r", "\x1f", "\ufeff") },
  { weight: 1, arbitrary: fc.constantFrom([0xff], [0xc3], [0xe2, 0x82], [0xef, 0xbb, 0xbf]) }
)
const files = fc.tuple(fc.boolean(), fc.array(tokens, { maxLength: 60 })).map(([bom, parts]) => bytesOf(bom ? "\ufeff" : "", ...parts))
/** Mostly well-formed files (what the fast path sees), with a noisy record now and then. */
const cellText = fc.array(fc.constantFrom("a", "é", "𝄞", " ", ",", ";", "\"", "\n", "\r", "x1"), { maxLength: 6 }).map((parts) => parts.join(""))
const cell = fc.oneof(
  cellText.map((text) => text.replace(/[,;"\r\n]/g, "")),
  cellText.map((text) => `"${text.replaceAll("\"", "\"\"")}"`),
  cellText
)
const wellFormed = fc.tuple(
  fc.constantFrom(",", ";"),
  fc.constantFrom("\n", "\r\n"),
  fc.boolean(),
  fc.array(fc.array(cell, { minLength: 1, maxLength: 4 }), { maxLength: 12 })
).map(([d, eol, bom, records]) => bytesOf(bom ? "\ufeff" : "", ...records.map((cells) => cells.join(d) + eol)))
const cutFiles = fc.oneof(files, wellFormed).chain((input) => fc.tuple(fc.constant(input), fc.array(fc.nat({ max: input.length }), { maxLength: 5 }), fc.nat({ max: 3 })))

describe("CsvByteReader", () => {
  // A file that fails is dropped whole: which of its rows came before the error depends on the cuts for both readers.
  it("reads exactly what CsvReader reads (rows, lines and delimiter of a readable file, the error of an unreadable one) however the bytes are cut", () => {
    fc.assert(
      fc.property(cutFiles, ([input, cuts, field]) => {
        const pieces = piecesOf(input, cuts)
        const read = withByteReader(pieces, field)
        const expected = withReader(pieces)
        expect(read.error).toEqual(expected.error)
        if (expected.error === undefined) expect({ rows: read.rows, delimiter: read.delimiter }).toEqual({ rows: expected.rows, delimiter: expected.delimiter })
      }),
      { numRuns: 3000 }
    )
  })

  it("hands one-line records to the line sink as bytes, quoted ones included, and the rest after a quoted line break to CsvReader", () => {
    const text = "\ufeffcode;desc;n\r\nP1;\"a;\"\"b\"\"\";1,5\r\nP2;Sartén;2\r\n\r\n\"P3\";x;3\r\nP4;\"two\nlines\";4\r\nP5;y;5\r\n"
    const input = encoder.encode(text)
    for (let size = 1; size <= 9; size++) {
      const pieces = piecesOf(input, Array.from({ length: Math.floor(input.length / size) }, (_, i) => (i + 1) * size))
      const read = withByteReader(pieces, 0)
      expect(read.error).toBeUndefined()
      expect(read.rows.map((row) => row.line)).toEqual([1, 2, 3, 5, 6, 8])
      expect(read.rows[3]?.fields).toEqual(["P3", "x", "3"])
      expect(read.rows[4]?.fields).toEqual(["P4", "two\nlines", "4"])
      expect(read.lines).toBe(4)
      expect(read).toMatchObject(withReader(pieces))
    }
  })

  it("fails on invalid UTF-8 where CsvReader does, after handing on the lines before it", () => {
    const input = bytesOf("a,b\n1,2\n3,", [0xff], "\n")
    const read = withByteReader([input.subarray(0, 9), input.subarray(9)], 1)
    expect(read.error).toBe("attributesCsv line 3: invalid UTF-8 byte sequence at byte 10")
    expect(read.lines).toBe(2)
    expect(read.error).toBe(withReader([input]).error)
  })
})
