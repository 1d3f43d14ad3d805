import { CsvSyntaxError } from "./CsvErrors.ts"
import { firstInvalidUtf8, incompleteTailStart } from "../Utf8.ts"

/** One CSV record: its fields and the 1-based physical line where it starts. */
export interface CsvRow {
  readonly line: number
  readonly fields: Array<string>
  /** Set when the record is malformed but the rest of the file is still readable (text after a closing quote). */
  readonly fault?: string
}

export type CsvDelimiter = "," | ";"

/**
 * Receives a record without any quote as its text (the line without its line end): its fields are
 * `text.split(delimiter)`. Lets a caller that only moves records along skip splitting them.
 */
export type CsvUnquotedSink = (line: number, text: string) => void

export interface CsvReadOptions {
  /** Name used in errors, e.g. the multipart part name. */
  readonly file?: string
  /** Forces the delimiter; by default the header line decides between `,` and `;`. */
  readonly delimiter?: CsvDelimiter
  /** Longest accepted record, in UTF-16 code units (a runaway quote otherwise buffers the whole file). */
  readonly maxRecordChars?: number
  /**
   * Reads the rest of a file from a record boundary (with `delimiter` given): lines and byte offsets
   * are numbered from there, and a byte order mark is not expected (one there is a character).
   */
  readonly continueAt?: { readonly line: number; readonly byte: number }
}

export const DEFAULT_MAX_RECORD_CHARS = 1024 * 1024

const QUOTE = 34
const CR = 13
const LF = 10

/**
 * Streaming RFC 4180 reader: `,` or `;` (detected on the header line), quoted fields holding
 * delimiters, doubled quotes and line breaks, a UTF-8 byte order mark, CRLF or LF line ends.
 * Blank lines are skipped. A quote inside an unquoted field is kept as a literal character.
 *
 * Records without a quote take a fast path (one indexOf and a native split); only quoted ones are
 * walked character by character. Memory: one chunk plus one incomplete record.
 */
export class CsvReader {
  readonly file: string
  private readonly maxRecordChars: number
  private readonly decoder: InstanceType<typeof TextDecoder>
  private delimiterChar: string | undefined
  private pending = ""
  /** The bytes of a character the last chunk ended inside (the decoder holds them): an invalid sequence may start there. */
  private held: Uint8Array = new Uint8Array(0)
  private line: number
  private bytes: number
  private error: CsvSyntaxError | undefined = undefined

  constructor(options: CsvReadOptions = {}) {
    this.file = options.file ?? "csv"
    this.maxRecordChars = options.maxRecordChars ?? DEFAULT_MAX_RECORD_CHARS
    this.delimiterChar = options.delimiter
    this.decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: options.continueAt !== undefined })
    this.line = options.continueAt?.line ?? 1
    this.bytes = options.continueAt?.byte ?? 0
  }

  /** The delimiter in use, once the header line has been seen. */
  get delimiter(): CsvDelimiter | undefined {
    return this.delimiterChar === undefined ? undefined : this.delimiterChar === ";" ? ";" : ","
  }

  /** Reads the next bytes; complete records go to `emit`, or to `emitUnquoted` for records without quotes when it is given. */
  push(chunk: Uint8Array, emit: (row: CsvRow) => void, emitUnquoted?: CsvUnquotedSink): CsvSyntaxError | undefined {
    if (this.error !== undefined) return this.error
    let text: string
    try {
      text = this.decoder.decode(chunk, { stream: true })
    } catch {
      return this.invalidUtf8(chunk)
    }
    this.bytes += chunk.length
    this.held = heldAfter(this.held, chunk)
    return this.parse(this.pending.length === 0 ? text : this.pending + text, false, emit, emitUnquoted)
  }

  end(emit: (row: CsvRow) => void, emitUnquoted?: CsvUnquotedSink): CsvSyntaxError | undefined {
    if (this.error !== undefined) return this.error
    let text: string
    try {
      text = this.decoder.decode()
    } catch {
      return this.fail(this.line + countLf(this.pending, 0, this.pending.length), `invalid UTF-8: incomplete character at end of file (byte ${this.bytes})`)
    }
    return this.parse(this.pending + text, true, emit, emitUnquoted)
  }

  private parse(text: string, final: boolean, emit: (row: CsvRow) => void, emitUnquoted: CsvUnquotedSink | undefined): CsvSyntaxError | undefined {
    if (this.delimiterChar === undefined) {
      const nl = text.indexOf("\n")
      if (nl === -1 && !final) return this.keep(text, 0)
      this.delimiterChar = detectDelimiter(text, nl === -1 ? text.length : nl)
    }
    const d = this.delimiterChar
    const n = text.length
    let p = 0
    let line = this.line
    // Position of the next quote, searched again only once passed, so quote-free text is scanned once.
    let q = text.indexOf("\"")
    while (p < n) {
      let nl = text.indexOf("\n", p)
      if (nl === -1) {
        if (!final) break
        nl = n
      }
      if (q !== -1 && q < p) q = text.indexOf("\"", p)
      if (q === -1 || q > nl) {
        const end = nl > p && text.charCodeAt(nl - 1) === CR ? nl - 1 : nl
        if (end > p) {
          if (emitUnquoted === undefined) emit({ line, fields: text.slice(p, end).split(d) })
          else emitUnquoted(line, text.slice(p, end))
        }
        line++
        p = nl + 1
        continue
      }
      if (nl < n || final) {
        // Common case: quoted fields without line breaks; split the line and rejoin quoted pieces.
        const end = nl > p && text.charCodeAt(nl - 1) === CR ? nl - 1 : nl
        const quick = splitQuotedLine(text.slice(p, end), d)
        if (quick !== undefined) {
          emit({ line, fields: quick })
          line++
          p = nl + 1
          continue
        }
      }
      const r = this.quotedRecord(text, p, d, final)
      if (r === undefined) break
      if (typeof r === "number") {
        this.line = line
        const quoteLine = line + countLf(text, p, r)
        const column = r - text.lastIndexOf("\n", r)
        return this.fail(quoteLine, `unclosed quote: the quoted field opened at character ${column} of this line is not closed at end of file`)
      }
      emit(r.fault === undefined ? { line, fields: r.fields } : { line, fields: r.fields, fault: r.fault })
      line += 1 + countLf(text, p, r.end - 1)
      p = r.end
    }
    this.line = line
    return this.keep(text, p)
  }

  /**
   * Walks a record holding a quote from p; undefined when it is cut by the end of the text, or
   * the index of a quote still open at end of file.
   */
  private quotedRecord(text: string, p: number, d: string, final: boolean): QuotedRecord | number | undefined {
    const n = text.length
    const dc = d.charCodeAt(0)
    const fields: Array<string> = []
    let fault: string | undefined
    for (;;) {
      let value: string
      if (text.charCodeAt(p) === QUOTE) {
        const open = p
        value = ""
        let from = p + 1
        for (;;) {
          const q = text.indexOf("\"", from)
          if (q === -1) {
            return final ? open : undefined
          }
          if (q + 1 === n && !final) return undefined
          if (text.charCodeAt(q + 1) === QUOTE) {
            value += text.slice(from, q + 1)
            from = q + 2
            continue
          }
          value += text.slice(from, q)
          p = q + 1
          break
        }
        const c = p < n ? text.charCodeAt(p) : LF
        if (c !== dc && c !== LF && !(c === CR && (p + 1 === n ? final : text.charCodeAt(p + 1) === LF))) {
          if (p + 1 === n && c === CR && !final) return undefined
          fault ??= `unexpected ${JSON.stringify(text[p])} after the closing quote of field ${fields.length + 1}`
          const stop = fieldEnd(text, p, d, n)
          value += text.slice(p, stop)
          p = stop
        }
      } else {
        const stop = fieldEnd(text, p, d, n)
        value = text.slice(p, stop)
        p = stop
      }
      if (p < n && text.charCodeAt(p) === dc) {
        fields.push(value)
        p++
        continue
      }
      // End of record: LF, CRLF or end of text.
      if (p < n && text.charCodeAt(p) === CR) {
        if (p + 1 < n) p++
        else if (!final) return undefined
      }
      if (p >= n && !final) return undefined
      fields.push(value)
      return { fields, end: p + 1, fault }
    }
  }

  private keep(text: string, p: number): CsvSyntaxError | undefined {
    this.pending = p === 0 ? text : text.slice(p)
    if (this.pending.length > this.maxRecordChars) {
      return this.fail(this.line, `a record is longer than ${this.maxRecordChars} characters (an unclosed quote?)`)
    }
    return undefined
  }

  /** Where the first invalid sequence starts, counting from this chunk (negative: in bytes the decoder held), however the file was cut. */
  private invalidUtf8(chunk: Uint8Array): CsvSyntaxError {
    const bytes = joinBytes(this.held, chunk)
    const at = Math.max(0, firstInvalidUtf8(bytes, 0, bytes.length)) - this.held.length
    let line = this.line + countLf(this.pending, 0, this.pending.length)
    for (let i = 0; i < at; i++) if (chunk[i] === LF) line++
    return this.fail(line, `invalid UTF-8 byte sequence at byte ${this.bytes + at}`)
  }

  private fail(line: number, reason: string): CsvSyntaxError {
    this.error = new CsvSyntaxError({ file: this.file, line, reason })
    return this.error
  }
}

interface QuotedRecord {
  readonly fields: Array<string>
  /** Index just after the record's line end. */
  readonly end: number
  readonly fault: string | undefined
}

/**
 * The fields of a record that is one physical line (its text without the line end), as the reader
 * gives them; undefined when the slow walk must decide (a quoted field running past the line end, or
 * text after a closing quote).
 */
export const splitCsvLine = (line: string, d: CsvDelimiter): Array<string> | undefined =>
  line.indexOf("\"") === -1 ? line.split(d) : splitQuotedLine(line, d)

/**
 * Fields of one physical line holding quotes, or undefined when the slow walk must decide (a quoted
 * field running past the line end, or text after a closing quote).
 */
const splitQuotedLine = (line: string, d: string): Array<string> | undefined => {
  const parts = line.split(d)
  const out: Array<string> = []
  for (let k = 0; k < parts.length; k++) {
    let field = parts[k]!
    if (field.charCodeAt(0) !== QUOTE) {
      out.push(field)
      continue
    }
    for (;;) {
      const closed = closedQuoted(field)
      if (closed === false) return undefined
      if (closed) break
      k++
      if (k >= parts.length) return undefined
      field += d + parts[k]!
    }
    const inner = field.slice(1, -1)
    out.push(inner.indexOf("\"") === -1 ? inner : inner.replaceAll("\"\"", "\""))
  }
  return out
}

/** true: a well-formed quoted field; undefined: its closing quote is further on; false: malformed. */
const closedQuoted = (field: string): boolean | undefined => {
  const last = field.length - 1
  let i = 1
  for (;;) {
    const q = field.indexOf("\"", i)
    if (q === -1) return undefined
    if (q === last) return true
    if (field.charCodeAt(q + 1) !== QUOTE) return false
    i = q + 2
  }
}

/** End of an unquoted field: the next delimiter, CR of a CRLF, LF, or end of text. */
const fieldEnd = (text: string, p: number, d: string, n: number): number => {
  const nl = text.indexOf("\n", p)
  const lineEnd = nl === -1 ? n : nl > p && text.charCodeAt(nl - 1) === CR ? nl - 1 : nl
  const dl = text.indexOf(d, p)
  return dl !== -1 && dl < lineEnd ? dl : lineEnd
}

const joinBytes = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  if (a.length === 0) return b
  const joined = new Uint8Array(a.length + b.length)
  joined.set(a, 0)
  joined.set(b, a.length)
  return joined
}

/** The incomplete character at the end of `held` then `chunk` (at most 3 bytes, copied). */
const heldAfter = (held: Uint8Array, chunk: Uint8Array): Uint8Array => {
  const bytes = chunk.length >= 3 ? chunk : joinBytes(held, chunk)
  return bytes.slice(incompleteTailStart(bytes, 0, bytes.length))
}

const countLf = (text: string, from: number, to: number): number => {
  let count = 0
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) count++
  return count
}

/** `;` when the header line holds more semicolons than commas, else `,`. */
const detectDelimiter = (text: string, end: number): string => {
  let commas = 0
  let semicolons = 0
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i)
    if (c === 44) commas++
    else if (c === 59) semicolons++
  }
  return semicolons > commas ? ";" : ","
}
