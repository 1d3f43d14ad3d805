import { describe, expect, it } from "vitest"
import { type CsvReadOptions, CsvReader, type CsvRow } from "../../src/csv/CsvReader.ts"
import type { CsvSyntaxError } from "../../src/csv/CsvErrors.ts"

const encode = (text: string): Uint8Array => new TextEncoder().encode(text)

interface Read {
  readonly rows: ReadonlyArray<CsvRow>
  readonly error: CsvSyntaxError | undefined
  readonly delimiter: string | undefined
}

const readCut = (input: Uint8Array, cuts: ReadonlyArray<number>, options?: CsvReadOptions): Read => {
  const reader = new CsvReader({ file: "productsCsv", ...options })
  const rows: Array<CsvRow> = []
  const emit = (row: CsvRow): void => {
    rows.push(row)
  }
  let from = 0
  for (const to of [...cuts, input.length]) {
    const error = reader.push(input.subarray(from, to), emit)
    if (error !== undefined) return { rows, error, delimiter: reader.delimiter }
    from = to
  }
  return { rows, error: reader.end(emit), delimiter: reader.delimiter }
}

const read = (text: string | Uint8Array, chunkSize?: number, options?: CsvReadOptions): Read => {
  const input = typeof text === "string" ? encode(text) : text
  const size = chunkSize ?? Math.max(1, input.length)
  const cuts: Array<number> = []
  for (let i = size; i < input.length; i += size) cuts.push(i)
  return readCut(input, cuts, options)
}

const fields = (r: Read): ReadonlyArray<ReadonlyArray<string>> => r.rows.map((row) => row.fields)
const lines = (r: Read): ReadonlyArray<number> => r.rows.map((row) => row.line)

describe("CsvReader", () => {
  it("reads comma-separated rows with their line numbers", () => {
    const r = read("a,b,c\n1,2,3\n4,,6\n")
    expect(r.error).toBeUndefined()
    expect(r.delimiter).toBe(",")
    expect(fields(r)).toEqual([["a", "b", "c"], ["1", "2", "3"], ["4", "", "6"]])
    expect(lines(r)).toEqual([1, 2, 3])
  })

  it("detects ; from the header line, even when data cells hold commas", () => {
    const r = read("a;b\n1,5;x,y\n")
    expect(r.delimiter).toBe(";")
    expect(fields(r)).toEqual([["a", "b"], ["1,5", "x,y"]])
  })

  it("reads quoted fields with delimiters, doubled quotes and line breaks, and numbers lines physically", () => {
    const text = 'code,desc,n\r\nP1,"a, b",1\r\nP2,"say ""hi""",2\r\nP3,"two\r\nlines\nthree",3\r\nP4,"",4\r\n'
    const r = read(text)
    expect(r.error).toBeUndefined()
    expect(fields(r)).toEqual([
      ["code", "desc", "n"],
      ["P1", "a, b", "1"],
      ["P2", 'say "hi"', "2"],
      ["P3", "two\r\nlines\nthree", "3"],
      ["P4", "", "4"]
    ])
    expect(lines(r)).toEqual([1, 2, 3, 4, 7])
  })

  it("strips a UTF-8 byte order mark, accepts CRLF and a last line without line end, skips blank lines", () => {
    const r = read("\ufeffcode;name\r\n\r\nP1;Sartén\r\n\nP2;\"x\"")
    expect(fields(r)).toEqual([["code", "name"], ["P1", "Sartén"], ["P2", "x"]])
    expect(lines(r)).toEqual([1, 3, 5])
  })

  it("keeps a quote inside an unquoted field as a character", () => {
    expect(fields(read('a,b\n12" pipe,x\n'))).toEqual([["a", "b"], ['12" pipe', "x"]])
  })

  it("emits ragged rows as they are, without failing", () => {
    const r = read("a,b,c\n1,2\n1,2,3,4\n5,6,7\n")
    expect(r.error).toBeUndefined()
    expect(fields(r)).toEqual([["a", "b", "c"], ["1", "2"], ["1", "2", "3", "4"], ["5", "6", "7"]])
  })

  it("marks a row with text after a closing quote and goes on with the next rows", () => {
    const r = read('a,b\n"x"y,2\n3,4\n')
    expect(r.error).toBeUndefined()
    expect(r.rows[1]).toEqual({ line: 2, fields: ["xy", "2"], fault: 'unexpected "y" after the closing quote of field 1' })
    expect(r.rows[2]).toEqual({ line: 3, fields: ["3", "4"] })
  })

  it("fails on a quote left open at end of file, naming the line where it opened", () => {
    const r = read('a,b\n1,2\n3,"open\n4,5\n6,7\n')
    expect(r.error?._tag).toBe("CsvSyntaxError")
    expect(r.error?.file).toBe("productsCsv")
    expect(r.error?.line).toBe(3)
    expect(r.error?.reason).toMatch(/^unclosed quote/)
    expect(fields(r)).toEqual([["a", "b"], ["1", "2"]])
    // The same quote opened on a record's second physical line.
    expect(read('a,b\n"x\ny",1\n2,"open').error?.line).toBe(4)
  })

  it("fails on invalid UTF-8 with the line it is on", () => {
    const input = new Uint8Array([...encode("a,b\n1,2\n3,"), 0xff, ...encode("\n")])
    for (const size of [input.length, 1, 4]) {
      const r = read(input, size)
      expect(r.error).toMatchObject({ _tag: "CsvSyntaxError", line: 3 })
      expect(r.error?.reason).toBe("invalid UTF-8 byte sequence at byte 10")
    }
    expect(read(new Uint8Array([...encode("a\n"), 0xc3])).error?.reason).toMatch(/incomplete character at end of file/)
  })

  it("places an invalid sequence that starts in one chunk and breaks in the next where it starts", () => {
    const input = new Uint8Array([...encode("a,b\n1,é"), 0xe2, 0x82, 0x41, ...encode("\n")])
    for (let cut = 0; cut <= input.length; cut++) {
      expect(readCut(input, [cut]).error?.message).toBe("productsCsv line 2: invalid UTF-8 byte sequence at byte 8")
    }
  })

  it("fails on a record longer than maxRecordChars instead of buffering the file", () => {
    const r = read(`a,b\n"${"x".repeat(500)}`, 64, { maxRecordChars: 200 })
    expect(r.error).toMatchObject({ line: 2 })
    expect(r.error?.reason).toMatch(/longer than 200 characters/)
  })

  it("gives no rows and no error for an empty file", () => {
    expect(read("")).toEqual({ rows: [], error: undefined, delimiter: "," })
  })

  it("gives the same rows for a cut at every byte, and for every chunk size up to 8", () => {
    const text = '\ufeffcode;desc;price\r\nP1;"a;b ""c""\r\nd";1,5\r\nP2;Sartén €;2\r\n\r\nP3;"";\r\nP4;"x"'
    const input = encode(text)
    const whole = read(input)
    expect(whole.error).toBeUndefined()
    expect(lines(whole)).toEqual([1, 2, 4, 6, 7])
    for (let cut = 0; cut <= input.length; cut++) expect(readCut(input, [cut])).toEqual(whole)
    for (let size = 1; size <= 8; size++) expect(read(input, size)).toEqual(whole)
  })

  it("gives the same result for two cuts anywhere in a short quoted file", () => {
    const input = encode('a,b\r\n"x""\r\ny",2\r\n3,"4"')
    const whole = read(input)
    for (let a = 0; a <= input.length; a++) for (let b = a; b <= input.length; b++) expect(readCut(input, [a, b])).toEqual(whole)
  })

  it("hands records without quotes to emitUnquoted as their text, whose split gives the fields emit would have had", () => {
    const text = '\ufeffcode;desc;price\r\nP1;"a;b ""c""\r\nd";1,5\r\nP2;Sartén € 12" x;2\r\n\r\nP3;"";\r\nP4;plain\rtext;3\nP5;"x"'
    const input = encode(text)
    const whole = read(input)
    for (let size = 1; size <= 9; size++) {
      const reader = new CsvReader({ file: "productsCsv" })
      const rows: Array<CsvRow> = []
      const unquoted: Array<number> = []
      const emit = (row: CsvRow): void => {
        rows.push(row)
      }
      const emitUnquoted = (line: number, record: string): void => {
        unquoted.push(line)
        rows.push({ line, fields: record.split(reader.delimiter ?? ",") })
      }
      for (let i = 0; i < input.length; i += size) expect(reader.push(input.subarray(i, i + size), emit, emitUnquoted)).toBeUndefined()
      expect(reader.end(emit, emitUnquoted)).toBeUndefined()
      expect(rows).toEqual(whole.rows)
      expect(unquoted).toEqual([1, 7])
    }
  })
})
