import { isUtf8 } from "node:buffer"
import type { CsvSyntaxError } from "./CsvErrors.ts"
import { type CsvDelimiter, type CsvReadOptions, CsvReader, type CsvRow, DEFAULT_MAX_RECORD_CHARS } from "./CsvReader.ts"

/**
 * Receives a record that is one physical line and well-formed: its bytes are `bytes[start, end)`
 * (without the line end; `splitCsvLine` of their text gives its fields), and field `fieldStart`..`fieldEnd`
 * is the one the reader was asked for (as in the file: quotes included; both -1 when the record has
 * fewer fields). The bytes are only valid during the call.
 */
export type CsvLineSink = (line: number, bytes: Uint8Array, start: number, end: number, fieldStart: number, fieldEnd: number) => void

export interface CsvByteReadOptions extends Omit<CsvReadOptions, "continueAt" | "delimiter"> {
  /** Index of the field whose bytes the line sink is told (changeable as lines are read, see `field`). */
  readonly field: number
}

const QUOTE = 34
const CR = 13
const LF = 10
const COMMA = 44
const SEMICOLON = 59
const NO_BYTES = new Uint8Array(0)

/** Not a one-line well-formed record: the walk hands over to `CsvReader`. */
const COMPLEX = -2

/**
 * `CsvReader` on bytes, for a caller that moves records along without their fields: a record that is
 * one physical line and well-formed (quoted or not; nearly every record) goes to the line sink as its
 * bytes, never decoded into a string, with the byte range of one field. The first record that is
 * anything else (a quoted line break, text after a closing quote, invalid UTF-8, a record longer than
 * `maxRecordChars`) and everything after it is read by `CsvReader` itself, continuing at that record's
 * line and byte, so rows, line numbers and errors are exactly `CsvReader`'s; those records go to
 * `emit` with their fields. The bytes are checked as UTF-8 before any line is handed on.
 */
export class CsvByteReader {
  readonly file: string
  /** Index of the field whose bytes the line sink is told; a sink may change it for the lines after its own (once it read the header). */
  field: number
  private readonly maxRecordChars: number
  private delimiterByte = -1
  private pending: Uint8Array = NO_BYTES
  /** Where the last incomplete line and the next chunk are put together, reused (a fresh array per chunk is garbage outside the heap). */
  private carry: Uint8Array = NO_BYTES
  /** Offset in the file of `pending[0]`. */
  private offset = 0
  private line = 1
  private started = false
  private rest: CsvReader | undefined = undefined

  constructor(options: CsvByteReadOptions) {
    this.file = options.file ?? "csv"
    this.field = options.field
    this.maxRecordChars = options.maxRecordChars ?? DEFAULT_MAX_RECORD_CHARS
  }

  /** The delimiter in use, once the header line has been seen. */
  get delimiter(): CsvDelimiter | undefined {
    if (this.rest !== undefined) return this.rest.delimiter
    return this.delimiterByte === -1 ? undefined : this.delimiterByte === SEMICOLON ? ";" : ","
  }

  push(chunk: Uint8Array, emit: (row: CsvRow) => void, emitLine: CsvLineSink): CsvSyntaxError | undefined {
    if (this.rest !== undefined) return this.rest.push(chunk, emit)
    return this.read(this.pending.length === 0 ? chunk : this.joined(chunk), false, emit, emitLine)
  }

  end(emit: (row: CsvRow) => void, emitLine: CsvLineSink): CsvSyntaxError | undefined {
    if (this.rest !== undefined) return this.rest.end(emit)
    return this.read(this.pending, true, emit, emitLine)
  }

  private read(data: Uint8Array, final: boolean, emit: (row: CsvRow) => void, emitLine: CsvLineSink): CsvSyntaxError | undefined {
    const n = data.length
    let p = 0
    if (!this.started) {
      if (n < 3 && !final) return this.keep(data, 0, emit)
      this.started = true
      if (n >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) p = 3
    }
    if (this.delimiterByte === -1) {
      const nl = data.indexOf(LF, p)
      if (nl === -1 && !final) return this.keep(data, p, emit)
      this.delimiterByte = detectDelimiter(data, p, nl === -1 ? n : nl)
    }
    // Only whole lines are read here (a line feed is never part of a multi-byte character).
    const stop = final ? n : data.lastIndexOf(LF) + 1
    if (stop <= p) return this.keep(data, p, emit)
    if (!isUtf8(data.subarray(p, stop))) return this.handOver(data, p, final, emit)
    const d = this.delimiterByte
    let line = this.line
    let q = data.indexOf(QUOTE, p)
    while (p < stop) {
      let nl = data.indexOf(LF, p)
      if (nl === -1) nl = stop
      const end = nl > p && data[nl - 1] === CR ? nl - 1 : nl
      if (end > p) {
        if (q !== -1 && q < p) q = data.indexOf(QUOTE, p)
        const fieldEnd = q === -1 || q >= end ? unquotedFieldEnd(data, p, end, d, this.field) : quotedFieldEnd(data, p, end, d, this.field)
        if (fieldEnd === COMPLEX) {
          this.line = line
          return this.handOver(data, p, final, emit)
        }
        emitLine(line, data, p, end, fieldEnd === -1 ? -1 : fieldFound, fieldEnd)
      }
      line++
      p = nl + 1
    }
    this.line = line
    return this.keep(data, Math.min(p, n), emit)
  }

  /** The pending bytes then `chunk`, in `carry` (the pending bytes may already be in it: `set` copies an overlapping range as it was). */
  private joined(chunk: Uint8Array): Uint8Array {
    const need = this.pending.length + chunk.length
    if (this.carry.length < need) {
      const grown = new Uint8Array(Math.max(need, 2 * this.carry.length))
      grown.set(this.pending, 0)
      this.carry = grown
    } else {
      this.carry.set(this.pending, 0)
    }
    this.carry.set(chunk, this.pending.length)
    return this.carry.subarray(0, need)
  }

  /** Keeps the incomplete last line; one longer than a record may be goes to `CsvReader`, which fails on it as it would. */
  private keep(data: Uint8Array, p: number, emit: (row: CsvRow) => void): CsvSyntaxError | undefined {
    if (data.length - p > this.maxRecordChars) return this.handOver(data, p, false, emit)
    this.offset += p
    this.pending = p === 0 ? data : data.subarray(p)
    return undefined
  }

  /** `CsvReader` reads the file from data[p] (a record boundary after any byte order mark) to its end. */
  private handOver(data: Uint8Array, p: number, final: boolean, emit: (row: CsvRow) => void): CsvSyntaxError | undefined {
    const continueAt = { line: this.line, byte: this.offset + p }
    // Before the first line was read, CsvReader decides the delimiter (and fails first) as it would have.
    const delimiter = this.line === 1 ? undefined : this.delimiter
    this.rest = new CsvReader({ file: this.file, maxRecordChars: this.maxRecordChars, continueAt, ...(delimiter === undefined ? {} : { delimiter }) })
    this.pending = NO_BYTES
    const error = this.rest.push(data.subarray(p), emit)
    if (error !== undefined || !final) return error
    return this.rest.end(emit)
  }
}

/** `;` when the header line holds more semicolons than commas, else `,` (as CsvReader decides). */
const detectDelimiter = (data: Uint8Array, from: number, to: number): number => {
  let commas = 0
  let semicolons = 0
  for (let i = from; i < to; i++) {
    const c = data[i]
    if (c === COMMA) commas++
    else if (c === SEMICOLON) semicolons++
  }
  return semicolons > commas ? SEMICOLON : COMMA
}

/** Start of the field the last walk found (a walk is synchronous: nothing runs in between). */
let fieldFound = -1

/** End of field `field` of a line without quotes (its start in `fieldFound`), -1 when the line has fewer fields. */
const unquotedFieldEnd = (data: Uint8Array, p: number, end: number, d: number, field: number): number => {
  let start = p
  for (let k = 0; k < field; k++) {
    const next = data.indexOf(d, start)
    if (next === -1 || next >= end) return -1
    start = next + 1
  }
  fieldFound = start
  const next = data.indexOf(d, start)
  return next === -1 || next >= end ? end : next
}

/**
 * End of field `field` of a line holding a quote (its start in `fieldFound`), walked as `CsvReader`
 * reads a record: -1 when the line has fewer fields, `COMPLEX` when it is not a well-formed one-line record.
 */
const quotedFieldEnd = (data: Uint8Array, p: number, end: number, d: number, field: number): number => {
  let i = p
  let found = -1
  for (let k = 0; ; k++) {
    const start = i
    if (i < end && data[i] === QUOTE) {
      i++
      for (;;) {
        if (i >= end) return COMPLEX
        if (data[i] === QUOTE) {
          if (i + 1 < end && data[i + 1] === QUOTE) {
            i += 2
            continue
          }
          i++
          break
        }
        i++
      }
      if (i < end && data[i] !== d) return COMPLEX
    } else {
      while (i < end && data[i] !== d) i++
    }
    if (k === field) {
      fieldFound = start
      found = i
    }
    if (i >= end) return found
    i++
  }
}
