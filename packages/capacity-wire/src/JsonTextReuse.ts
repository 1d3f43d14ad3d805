import type { JsonBytes } from "./JsonBytes.ts"

/** Writes a value's JSON text, exactly as `JSON.stringify` would, into the answer's bytes. */
export type JsonWrite<A> = (value: A, out: JsonBytes) => void

const stringified: JsonWrite<unknown> = (value, out) => out.json(value)

/** A list's JSON text, each element by `write`; an undefined element (a hole) as null, as JSON.stringify writes it. */
export const writeList = <A>(out: JsonBytes, list: ReadonlyArray<A | undefined>, write: (element: A) => void): void => {
  out.text("[")
  for (let i = 0; i < list.length; i++) {
    if (i > 0) out.text(",")
    const element = list[i]
    if (element === undefined) out.text("null")
    else write(element)
  }
  out.text("]")
}

/**
 * JSON bytes of parts that outlive one answer: immutable values shared by many answers (a reused
 * plan's trace, dates and route lists; a node's entity details), registered by whoever builds them.
 * `null` until first written; their bytes are kept while they live.
 */
const lastingBytes = new WeakMap<object, Buffer | null>()

/** Marks values as never changing again and shared across answers: their JSON text is encoded once. */
export const markJsonLasting = (...values: ReadonlyArray<object>): void => {
  for (const value of values) if (!lastingBytes.has(value)) lastingBytes.set(value, null)
}

/** Whether `value` was marked `markJsonLasting`: it never changes again. */
export const isJsonLasting = (value: object): boolean => lastingBytes.has(value)

/** Writes `value`'s JSON text, kept across answers when the value is marked `markJsonLasting`. */
export const writeLasting = <A extends object>(out: JsonBytes, value: A, write: JsonWrite<A> = stringified): void => {
  const kept = lastingBytes.get(value)
  if (kept != null) return out.bytes(kept)
  const start = out.position
  write(value, out)
  if (kept === null) lastingBytes.set(value, out.since(start))
}

/**
 * Writes parts an answer holds more than once (the same array or object, by identity): each is
 * written once and its bytes repeated, so the answer is exactly what JSON.stringify of the whole
 * would be. One per answer; values marked `markJsonLasting` keep their bytes across answers.
 * `write`, when given, must write exactly JSON.stringify's text (it may itself splice shared parts).
 */
export const sharedJsonParts = (out: JsonBytes): <A extends object>(value: A, write?: JsonWrite<A>) => void => {
  const written = new Map<object, readonly [start: number, end: number]>()
  return (value, write) => {
    if (Array.isArray(value) && value.length === 0) return out.text("[]")
    const span = written.get(value)
    if (span !== undefined) return out.repeat(span[0], span[1])
    const start = out.position
    writeLasting(out, value, write)
    written.set(value, [start, out.position])
  }
}

/**
 * Runs of consecutive fields whose text is kept across answers. A run is keyed by an object unique
 * to what it is written from (a reused plan's trace), and its text is copied only for a value that
 * holds exactly what it was written from: the same `fields`, objects by identity and scalars by
 * value. It is kept only when every object among them (null aside) is marked lasting, and it keeps
 * just those fields of the first value, not the whole value.
 */
export class KeptRuns<R extends object> {
  private readonly runs = new WeakMap<object, { readonly from: R; readonly bytes: Buffer }>()

  constructor(private readonly fields: ReadonlyArray<keyof R>) {}

  /** Writes `value`'s run: its kept text when there is one for it, else what `write` writes (kept when lasting). */
  write(out: JsonBytes, key: object, value: R, write: () => void): void {
    const kept = this.runs.get(key)
    if (kept !== undefined && this.same(kept.from, value)) return out.bytes(kept.bytes)
    const start = out.position
    write()
    if (kept === undefined && this.lasting(value)) this.runs.set(key, { from: this.pick(value), bytes: out.since(start) })
  }

  private same(kept: R, value: R): boolean {
    for (const field of this.fields) if (kept[field] !== value[field]) return false
    return true
  }

  private lasting(value: R): boolean {
    for (const field of this.fields) {
      const part: unknown = value[field]
      if (typeof part === "object" && part !== null && !isJsonLasting(part)) return false
    }
    return true
  }

  private pick(value: R): R {
    const from: Partial<R> = {}
    for (const field of this.fields) from[field] = value[field]
    return from as R
  }
}
