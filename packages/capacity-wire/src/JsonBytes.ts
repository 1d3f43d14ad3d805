/** Bytes a text of this many UTF-16 code units can take in UTF-8, at most. */
const utf8Bound = (units: number) => units * 3

/** Shorter texts are copied by a loop while they are ASCII: cheaper than a call into the runtime. */
const LOOP_UNITS = 256

const QUOTE = 0x22
const BACKSLASH = 0x5c

/** Texts of the integers 0-1023, the quantities and units answers mostly hold. */
const SMALL_INTEGERS = Array.from({ length: 1024 }, (_, n) => String(n))
/** Texts of other numbers written: a few hundred recur (weights, costs, coordinates); cleared when this full. */
const NUMBER_TEXTS_KEPT = 4096
let numberTexts = new Map<number, string>()

/**
 * `String(value)` of a finite number, which is its JSON text: a table or a map lookup, three times
 * cheaper than converting a fraction each time (an answer writes dozens of weights and costs).
 */
const numberText = (value: number): string => {
  if (value >= 0 && value < SMALL_INTEGERS.length && (value | 0) === value) return SMALL_INTEGERS[value] as string
  let text = numberTexts.get(value)
  if (text === undefined) {
    if (numberTexts.size >= NUMBER_TEXTS_KEPT) numberTexts = new Map()
    text = String(value)
    numberTexts.set(value, text)
  }
  return text
}

/**
 * Answers are written one after the other into a slab and handed out as views of it, as node's
 * Buffer pool does for small buffers: no allocation and no copy per answer. A slab is dropped by
 * the writers when full and freed once the last answer viewing it is.
 */
const SLAB_BYTES = 256 * 1024

let slab = Buffer.allocUnsafeSlow(SLAB_BYTES)
let slabUsed = 0
/** A writer is writing into the slab: another one meanwhile writes into a buffer of its own. */
let slabTaken = false

/**
 * A JSON text written straight into UTF-8 bytes, the form in which it is sent. The answer
 * encoders splice in parts shared by many answers (a reused plan's trace, dates, a node's details)
 * as bytes encoded once. Built as a string instead, an answer is a rope of hundreds of parts that
 * node flattens and re-encodes on every write: measured at 19 µs for variant A's 18 KB answer of 5
 * items and 55 µs for variant B's 20 KB one, whose node names are not ASCII, more than the engine.
 * Positions are the writer's own, counted from its first byte.
 */
export class JsonBytes {
  private constructor(
    private buffer: Buffer,
    private base: number,
    private length: number,
    private onSlab: boolean
  ) {}

  /**
   * The bytes `write` writes. Into the slab, or, for a writer started while another writes, into a
   * buffer of its own; a write that throws leaves the slab as it was.
   */
  static written(write: (out: JsonBytes) => void): Buffer {
    const onSlab = !slabTaken
    const out = onSlab ? new JsonBytes(slab, slabUsed, slabUsed, true) : new JsonBytes(Buffer.allocUnsafe(4096), 0, 0, false)
    slabTaken ||= onSlab
    try {
      write(out)
      return out.done()
    } finally {
      if (onSlab) slabTaken = false
    }
  }

  /** Where the next byte goes: a part written from here can be kept (`since`) or repeated (`repeat`). */
  get position(): number {
    return this.length - this.base
  }

  /** JSON text as it is: punctuation, keys, `JSON.stringify` of a value. */
  text(text: string): void {
    this.reserve(utf8Bound(text.length))
    if (text.length <= LOOP_UNITS) {
      const buffer = this.buffer
      let at = this.length
      let i = 0
      for (; i < text.length; i++) {
        const unit = text.charCodeAt(i)
        if (unit >= 0x80) break
        buffer[at++] = unit
      }
      if (i === text.length) {
        this.length = at
        return
      }
    }
    this.length += this.buffer.write(text, this.length, "utf8")
  }

  /**
   * `JSON.stringify(value)`'s text, byte for byte, written straight into the answer when `value`
   * is plain data: objects of Object.prototype (own enumerable keys in their order, undefined and
   * symbol members left out) and arrays, holding such objects, finite numbers, booleans, null and
   * strings (those with something to escape or non-ASCII through JSON.stringify). That spares the
   * intermediate string: half the time of the answers' item lists. A value holding anything else
   * (toJSON, class instances, functions, non-finite numbers, bigints) is written by JSON.stringify
   * as a whole, what was written of it dropped. Not for a top-level undefined, which JSON.stringify
   * does not turn into text.
   */
  json(value: unknown): void {
    const start = this.position
    if (this.plain(value)) return
    this.length = this.base + start
    this.text(JSON.stringify(value))
  }

  /** Bytes of JSON text encoded before. */
  bytes(bytes: Uint8Array): void {
    this.reserve(bytes.length)
    this.buffer.set(bytes, this.length)
    this.length += bytes.length
  }

  /** The bytes written between positions `start` and `end` again, at the end. */
  repeat(start: number, end: number): void {
    this.reserve(end - start)
    this.buffer.copyWithin(this.length, this.base + start, this.base + end)
    this.length += end - start
  }

  /** A copy of what was written from position `start` on (a part kept for later answers). */
  since(start: number): Buffer {
    return Buffer.from(this.buffer.subarray(this.base + start, this.length))
  }

  private done(): Buffer {
    if (this.onSlab) slabUsed = this.length
    return this.buffer.subarray(this.base, this.length)
  }

  /** Writes `value` when it is plain data (see `json`); false, with part of it written, at anything else. */
  private plain(value: unknown): boolean {
    switch (typeof value) {
      case "string":
        this.jsonString(value)
        return true
      case "number":
        if (!Number.isFinite(value)) return false
        this.ascii(numberText(value))
        return true
      case "boolean":
        this.ascii(value ? "true" : "false")
        return true
      case "object":
        if (value === null) {
          this.ascii("null")
          return true
        }
        // Before the array check: an array can carry toJSON too (its own, or Array.prototype's).
        if ("toJSON" in value) return false
        if (Array.isArray(value)) return this.plainArray(value)
        return Object.getPrototypeOf(value) === Object.prototype && this.plainObject(value as Record<string, unknown>)
      default:
        return false
    }
  }

  private plainArray(values: ReadonlyArray<unknown>): boolean {
    this.ascii("[")
    for (let i = 0; i < values.length; i++) {
      if (i > 0) this.ascii(",")
      const member = values[i]
      // As JSON.stringify: a member with no text (undefined, a symbol, a hole) is null.
      if (member === undefined || typeof member === "symbol") this.ascii("null")
      else if (!this.plain(member)) return false
    }
    this.ascii("]")
    return true
  }

  private plainObject(object: Record<string, unknown>): boolean {
    this.ascii("{")
    const keys = Object.keys(object)
    let first = true
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!
      const member = object[key]
      if (member === undefined || typeof member === "symbol") continue
      if (!first) this.ascii(",")
      first = false
      this.jsonString(key)
      this.ascii(":")
      if (!this.plain(member)) return false
    }
    this.ascii("}")
    return true
  }

  /** A string between quotes when none of its characters needs an escape and all are ASCII; else JSON.stringify's text of it. */
  private jsonString(text: string): void {
    if (text.length > LOOP_UNITS) return this.text(JSON.stringify(text))
    this.reserve(text.length + 2)
    const buffer = this.buffer
    let at = this.length
    buffer[at++] = QUOTE
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i)
      if (unit < 0x20 || unit === QUOTE || unit === BACKSLASH || unit >= 0x7f) return this.text(JSON.stringify(text))
      buffer[at++] = unit
    }
    buffer[at++] = QUOTE
    this.length = at
  }

  /** Text known to be ASCII (punctuation, a number's digits). */
  private ascii(text: string): void {
    this.reserve(text.length)
    const buffer = this.buffer
    let at = this.length
    for (let i = 0; i < text.length; i++) buffer[at++] = text.charCodeAt(i)
    this.length = at
  }

  /** Room for `bytes` more: past the buffer's end, what was written moves to a new one, which becomes the slab. */
  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return
    const written = this.length - this.base
    const moved = Buffer.allocUnsafeSlow(Math.max(this.onSlab ? SLAB_BYTES : 0, 2 * (written + bytes)))
    this.buffer.copy(moved, 0, this.base, this.length)
    this.buffer = moved
    this.base = 0
    this.length = written
    if (this.onSlab) {
      slab = moved
      slabUsed = 0
    }
  }
}
