import { Buffer } from "node:buffer"
import { locateJsonFault } from "./JsonLocate.ts"
import { describeChar, type JsonErrorKind, JsonSyntaxError } from "./JsonSyntaxError.ts"
import { MAX_JSON_DEPTH } from "./JsonDepth.ts"
import { measureJson } from "./JsonValueCount.ts"
import { Utf8StreamValidator } from "../Utf8.ts"

/** One element of the products array, parsed. */
export interface ScannedProduct {
  /** 0-based position in the products array. */
  readonly index: number
  /** Byte offset of the element's first byte in the file. */
  readonly offset: number
  /** 1-based line where the element starts. */
  readonly line: number
  /** Byte offset of the first byte of that line (for columns of faults found later in the element). */
  readonly lineStart: number
  /** The element, JSON.parse'd; `undefined` when the scanner was made with `parseProducts: false`. */
  readonly value: unknown
  /**
   * The element's bytes as the file holds them: a view of the chunk given to `push` (the scanner
   * never writes to it), or a copy when the element spanned chunks.
   */
  readonly json: Uint8Array
}

export interface JsonScanOptions {
  /** Largest accepted single element (a product, or a value skipped beside `products`), in bytes. */
  readonly maxElementBytes?: number
  /** Deepest nesting of arrays/objects within one element (default MAX_JSON_DEPTH); deeper is a "structure" error. */
  readonly maxDepth?: number
  /**
   * Most JSON values (member names included) in one element, counted before it is parsed; more is a
   * "too-large" error. Only elements longer than twice this many bytes are counted: a value takes at
   * least 2 bytes with its separator, so a shorter one cannot hold more.
   */
  readonly maxElementValues?: number
  /** The setting that sets `maxElementValues`, named in the error. */
  readonly maxElementValuesVariable?: string
  /**
   * false: products are delimited and handed out as bytes without JSON.parse (`value` undefined),
   * for a caller that parses them elsewhere and reports a fault with `elementFault`. Keys and values
   * beside the products array are still parsed. Default true.
   */
  readonly parseProducts?: boolean
}

export const DEFAULT_MAX_ELEMENT_BYTES = 16 * 1024 * 1024
/** 150 times a sample product's ~130 values; at most about 1.3 MB of heap for JSON.parse (67 bytes a `{}`). */
export const DEFAULT_MAX_ELEMENT_VALUES = 20_000

// Top-level states: the document outside the elements is walked byte by byte.
const START = 0
const BOM = 1
const OBJ_FIRST = 2
const OBJ_KEY = 3
const OBJ_COLON = 4
const OBJ_VALUE = 5
const OBJ_AFTER = 6
const ARR_FIRST = 7
const ARR_VALUE = 8
const ARR_AFTER = 9
const DONE = 10

// What a completed element is for.
const PRODUCT = 0
const KEY = 1
const SKIP = 2

const QUOTE = 0x22
const BACKSLASH = 0x5c
const NL = 0x0a

const isWs = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09

/**
 * Incremental scanner of a products file: `{"products":[...]}` (other top-level keys skipped, in any
 * order) or a top-level `[...]`. Fed chunks cut anywhere, it hands out each products element,
 * JSON.parse'd, and checks the whole document: structure, UTF-8, truncation, trailing data.
 *
 * Elements are delimited by counting brackets outside strings; JSON.parse then validates each one
 * and only when it fails does a slower walk locate the fault. Memory: one element plus one chunk.
 * Once an error is returned, every later call returns the same error.
 */
export class JsonProductScanner {
  private readonly maxElementBytes: number
  private readonly maxDepth: number
  private readonly parseProducts: boolean
  private readonly maxValues: number
  private readonly maxValuesVariable: string | undefined
  /** Elements longer than this are counted (twice maxValues: 2 bytes a value at least). */
  private readonly countAbove: number
  private readonly utf8 = new Utf8StreamValidator()
  private error: JsonSyntaxError | undefined = undefined
  private base = 0
  private state = START
  private topArray = false
  private seenProducts = false
  private productsNext = false
  private index = 0
  // Line bookkeeping: newlines before `nextNl` (relative to the current chunk) are counted.
  private line = 1
  private lineStart = 0
  private nextNl = 0
  // The element being scanned.
  private inElement = false
  private purpose = PRODUCT
  private bare = false
  private depth = 0
  private inString = false
  private escapeNext = false
  private elemStart = 0
  private elemLine = 1
  private elemLineStart = 0
  private acc: Buffer = Buffer.allocUnsafe(0)
  private accLen = 0

  constructor(options: JsonScanOptions = {}) {
    this.maxElementBytes = options.maxElementBytes ?? DEFAULT_MAX_ELEMENT_BYTES
    this.maxDepth = options.maxDepth ?? MAX_JSON_DEPTH
    this.parseProducts = options.parseProducts ?? true
    this.maxValues = options.maxElementValues ?? DEFAULT_MAX_ELEMENT_VALUES
    this.maxValuesVariable = options.maxElementValuesVariable
    this.countAbove = 2 * this.maxValues
  }

  /** Number of products handed out so far. */
  get count(): number {
    return this.index
  }

  /** Scans the next chunk, calling `emit` for each completed product. */
  push(input: Uint8Array, emit: (product: ScannedProduct) => void): JsonSyntaxError | undefined {
    if (this.error !== undefined) return this.error
    const buf = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength)
    const bad = this.utf8.push(buf)
    // Scan up to an invalid byte first, so that an earlier syntax error wins whatever the chunking.
    const n = bad === -1 ? buf.length : Math.max(0, bad - this.base)
    const nl = buf.indexOf(NL)
    this.nextNl = nl === -1 || nl >= n ? n : nl
    const err = this.scan(buf, n, emit)
    if (err !== undefined) return err
    if (bad !== -1) return this.fail("encoding", "invalid UTF-8 byte sequence", bad, buf, n)
    this.countLines(buf, n)
    if (this.inElement) {
      const from = Math.max(0, this.elemStart - this.base)
      if (this.accLen + n - from > this.maxElementBytes) return this.tooLarge()
      this.append(buf, from, n)
    }
    this.base += buf.length
    return undefined
  }

  /** Declares the end of input; an error unless the document was complete and well-formed. */
  end(): JsonSyntaxError | undefined {
    if (this.error !== undefined) return this.error
    const empty = Buffer.alloc(0)
    this.nextNl = 0
    const at = this.base
    const bad = this.utf8.end()
    if (bad !== -1 && this.state === DONE) return this.fail("encoding", "invalid UTF-8: incomplete character at end of file", bad, empty, 0)
    switch (this.state) {
      case DONE:
        return undefined
      case START:
        return this.fail("empty", at === 0 ? "empty file" : "the file holds no JSON value", at, empty, 0)
      case BOM:
        return this.fail("truncated", "unexpected end of file after a partial byte order mark", at, empty, 0)
      default: {
        if (this.inElement && this.purpose === PRODUCT) {
          return this.fail("truncated", `unexpected end of file inside product ${this.index} (starting at byte ${this.elemStart}): the products array is not closed`, at, empty, 0)
        }
        const inArray = this.state === ARR_FIRST || this.state === ARR_VALUE || this.state === ARR_AFTER
        return this.fail("truncated", inArray ? "unexpected end of file: the products array is not closed" : "unexpected end of file: the top-level object is not closed", at, empty, 0)
      }
    }
  }

  private scan(buf: Buffer, n: number, emit: (product: ScannedProduct) => void): JsonSyntaxError | undefined {
    let i = 0
    while (i < n) {
      if (this.inElement) {
        i = this.bare ? this.scanBare(buf, i, n, emit) : this.scanStructured(buf, i, n, emit)
        if (i < 0) return this.error
        continue
      }
      const c = buf[i]!
      if (this.state === BOM) {
        const abs = this.base + i
        if ((abs === 1 && c === 0xbb) || (abs === 2 && c === 0xbf)) {
          if (abs === 2) this.state = START
          i++
          continue
        }
        return this.unexpected(buf, i, n, "a byte order mark")
      }
      if (isWs(c)) {
        i++
        continue
      }
      switch (this.state) {
        case START:
          if (c === 0x7b) this.state = OBJ_FIRST
          else if (c === 0x5b) {
            this.topArray = true
            this.seenProducts = true
            this.state = ARR_FIRST
          } else if (c === 0xef && this.base + i === 0) this.state = BOM
          else {
            return this.failHere("structure", `unexpected ${describeChar(buf, i)}: the document must be an object with a "products" array, or an array of products`, buf, i, n)
          }
          i++
          continue
        case OBJ_FIRST:
        case OBJ_KEY:
          if (c === 0x7d && this.state === OBJ_FIRST) {
            const err = this.closeObject(buf, i, n)
            if (err !== undefined) return err
            i++
            continue
          }
          if (c !== QUOTE) return this.unexpected(buf, i, n, this.state === OBJ_FIRST ? "a key string or '}'" : "a key string")
          this.startElement(KEY, false, buf, i)
          continue
        case OBJ_COLON:
          if (c !== 0x3a) return this.unexpected(buf, i, n, "':'")
          this.state = OBJ_VALUE
          i++
          continue
        case OBJ_VALUE:
          if (this.productsNext) {
            if (c !== 0x5b) return this.failHere("structure", `the "products" value must be an array, found ${describeChar(buf, i)}`, buf, i, n)
            this.productsNext = false
            this.seenProducts = true
            this.state = ARR_FIRST
            i++
            continue
          }
          if (c === 0x2c || c === 0x7d || c === 0x5d || c === 0x3a) return this.unexpected(buf, i, n, "a value")
          this.startElement(SKIP, c !== 0x7b && c !== 0x5b && c !== QUOTE, buf, i)
          continue
        case OBJ_AFTER:
          if (c === 0x2c) this.state = OBJ_KEY
          else if (c === 0x7d) {
            const err = this.closeObject(buf, i, n)
            if (err !== undefined) return err
          } else return this.unexpected(buf, i, n, "',' or '}'")
          i++
          continue
        case ARR_FIRST:
        case ARR_VALUE:
          if (c === 0x5d && this.state === ARR_FIRST) {
            this.state = this.topArray ? DONE : OBJ_AFTER
            i++
            continue
          }
          if (c === 0x2c || c === 0x5d || c === 0x7d || c === 0x3a) return this.unexpected(buf, i, n, "a product")
          this.startElement(PRODUCT, c !== 0x7b && c !== 0x5b && c !== QUOTE, buf, i)
          continue
        case ARR_AFTER:
          if (c === 0x2c) this.state = ARR_VALUE
          else if (c === 0x5d) this.state = this.topArray ? DONE : OBJ_AFTER
          else return this.unexpected(buf, i, n, "',' or ']' after a product")
          i++
          continue
        default:
          return this.failHere("syntax", `unexpected ${describeChar(buf, i)} after the end of the document`, buf, i, n)
      }
    }
    return undefined
  }

  private closeObject(buf: Buffer, i: number, n: number): JsonSyntaxError | undefined {
    if (!this.seenProducts) return this.failHere("structure", "the top-level object has no \"products\" key", buf, i, n)
    this.state = DONE
    return undefined
  }

  private startElement(purpose: number, bare: boolean, buf: Buffer, i: number): void {
    this.countLines(buf, i)
    this.inElement = true
    this.purpose = purpose
    this.bare = bare
    this.depth = 0
    this.inString = false
    this.escapeNext = false
    this.elemStart = this.base + i
    this.elemLine = this.line
    this.elemLineStart = this.lineStart
    this.accLen = 0
  }

  // Numbers and literals end at a delimiter; JSON.parse judges what they hold.
  private scanBare(buf: Buffer, i: number, n: number, emit: (product: ScannedProduct) => void): number {
    while (i < n) {
      const c = buf[i]!
      if (c === 0x2c || c === 0x5d || c === 0x7d || isWs(c)) return this.endElement(buf, i, emit)
      i++
    }
    return n
  }

  private scanStructured(buf: Buffer, i: number, n: number, emit: (product: ScannedProduct) => void): number {
    let depth = this.depth
    if (this.inString) {
      // Resume a string cut by the chunk boundary, possibly right after a backslash.
      if (this.escapeNext) {
        this.escapeNext = false
        i++
      }
      while (i < n) {
        const c = buf[i]!
        if (c === QUOTE) break
        i += c === BACKSLASH ? 2 : 1
      }
      if (i >= n) {
        this.escapeNext = i > n
        return n
      }
      this.inString = false
      i++
      if (depth === 0) return this.endElement(buf, i, emit)
    }
    while (i < n) {
      const c = buf[i]!
      if (c === QUOTE) {
        // A byte loop beats indexOf here: strings in products are short.
        i++
        while (i < n) {
          const s = buf[i]!
          if (s === QUOTE) break
          i += s === BACKSLASH ? 2 : 1
        }
        if (i >= n) {
          this.inString = true
          this.escapeNext = i > n
          this.depth = depth
          return n
        }
        i++
        if (depth === 0) return this.endElement(buf, i, emit)
        continue
      }
      if (c === 0x7b || c === 0x5b) {
        if (++depth > this.maxDepth) return this.tooDeepAt(buf, i)
      } else if ((c === 0x7d || c === 0x5d) && --depth === 0) return this.endElement(buf, i + 1, emit)
      i++
    }
    this.depth = depth
    return n
  }

  private endElement(buf: Buffer, end: number, emit: (product: ScannedProduct) => void): number {
    this.inElement = false
    const from = Math.max(0, this.elemStart - this.base)
    let bytes: Buffer
    let spanned = false
    if (this.accLen > 0) {
      if (this.accLen + end > this.maxElementBytes) return this.tooLargeAt()
      this.append(buf, 0, end)
      bytes = this.acc.subarray(0, this.accLen)
      spanned = true
    } else {
      if (end - from > this.maxElementBytes) return this.tooLargeAt()
      bytes = buf.subarray(from, end)
    }
    // JSON.parse's heap grows with values, not bytes: 16 MiB of `{},` would be ~360 MB of it.
    if (bytes.length > this.countAbove && measureJson(bytes, this.maxValues, Number.POSITIVE_INFINITY)._tag === "TooManyValues") {
      return this.tooManyValuesAt()
    }
    let value: unknown
    if (this.purpose !== PRODUCT || this.parseProducts) {
      try {
        value = JSON.parse(bytes.toString("utf8"))
      } catch {
        const where = { offset: this.elemStart, line: this.elemLine, lineStart: this.elemLineStart }
        this.error = elementFault(bytes, where, this.purpose === PRODUCT ? this.index : undefined)
        return -1
      }
    }
    this.accLen = 0
    switch (this.purpose) {
      case PRODUCT:
        // The accumulator is reused for the next element that spans chunks: hand out a copy.
        emit({
          index: this.index++,
          offset: this.elemStart,
          line: this.elemLine,
          lineStart: this.elemLineStart,
          value,
          json: spanned ? Buffer.from(bytes) : bytes
        })
        this.state = ARR_AFTER
        break
      case KEY:
        if (value === "products") {
          if (this.seenProducts) {
            this.record("syntax", "duplicate \"products\" key", this.elemStart, this.elemLine, this.elemLineStart)
            return -1
          }
          this.productsNext = true
        }
        this.state = OBJ_COLON
        break
      default:
        this.state = OBJ_AFTER
    }
    return end
  }

  private append(buf: Buffer, from: number, to: number): void {
    const len = to - from
    if (this.accLen + len > this.acc.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.accLen + len, this.acc.length * 2, 65536))
      this.acc.copy(grown, 0, 0, this.accLen)
      this.acc = grown
    }
    buf.copy(this.acc, this.accLen, from, to)
    this.accLen += len
  }

  /** Counts newlines of the current chunk up to (not including) `to`. */
  private countLines(buf: Buffer, to: number): void {
    let j = this.nextNl
    while (j < to) {
      this.line++
      this.lineStart = this.base + j + 1
      j = buf.indexOf(NL, j + 1)
      if (j === -1) j = buf.length
    }
    this.nextNl = j
  }

  private unexpected(buf: Buffer, i: number, n: number, expected: string): JsonSyntaxError {
    return this.failHere("syntax", `unexpected ${describeChar(buf, i)}: expected ${expected}`, buf, i, n)
  }

  private failHere(kind: JsonErrorKind, reason: string, buf: Buffer, i: number, n: number): JsonSyntaxError {
    return this.fail(kind, reason, this.base + i, buf, Math.min(i, n))
  }

  private tooDeepAt(buf: Buffer, i: number): number {
    const what = this.purpose === PRODUCT ? `product ${this.index}` : "a value"
    this.fail("structure", `${what} is nested deeper than ${this.maxDepth} levels`, this.base + i, buf, i)
    return -1
  }

  private tooManyValuesAt(): number {
    const what = this.purpose === PRODUCT ? `product ${this.index}` : "a value"
    const variable = this.maxValuesVariable === undefined ? "" : ` (${this.maxValuesVariable})`
    this.record("too-large", `${what} has more than ${this.maxValues} JSON values${variable}`, this.elemStart, this.elemLine, this.elemLineStart)
    return -1
  }

  private tooLargeAt(): number {
    this.tooLarge()
    return -1
  }

  private tooLarge(): JsonSyntaxError {
    const what = this.purpose === PRODUCT ? `product ${this.index}` : "a value"
    return this.record("too-large", `${what} is larger than the limit of ${this.maxElementBytes} bytes`, this.elemStart, this.elemLine, this.elemLineStart)
  }

  /** Error at absolute `offset`, which lies in the current chunk before relative `upTo` (or before it). */
  private fail(kind: JsonErrorKind, reason: string, offset: number, buf: Buffer, upTo: number): JsonSyntaxError {
    this.countLines(buf, Math.max(0, Math.min(upTo, offset - this.base)))
    return this.record(kind, reason, offset, this.line, this.lineStart)
  }

  private record(kind: JsonErrorKind, reason: string, offset: number, line: number, lineStart: number): JsonSyntaxError {
    this.error = new JsonSyntaxError({ kind, reason, offset, line, column: offset - lineStart + 1 })
    return this.error
  }
}

/** Where an element starts in the file: its byte offset, line, and the offset of that line's first byte. */
export interface ElementStart {
  readonly offset: number
  readonly line: number
  readonly lineStart: number
}

/**
 * The file's fault when JSON.parse rejected an element (`bytes`, starting at `start`): the first
 * RFC 8259 violation in it, with its byte offset, line and column in the file. `productIndex` names
 * the product when the element is one.
 */
export const elementFault = (bytes: Uint8Array, start: ElementStart, productIndex?: number): JsonSyntaxError => {
  const fault = locateJsonFault(bytes)
  const rel = fault?.at ?? 0
  let line = start.line
  let lineStart = start.lineStart
  for (let j = bytes.indexOf(NL); j !== -1 && j < rel; j = bytes.indexOf(NL, j + 1)) {
    line++
    lineStart = start.offset + j + 1
  }
  const where = productIndex === undefined ? "" : ` in product ${productIndex}`
  const offset = start.offset + rel
  return new JsonSyntaxError({ kind: "syntax", reason: `${fault?.reason ?? "invalid JSON value"}${where}`, offset, line, column: offset - lineStart + 1 })
}
