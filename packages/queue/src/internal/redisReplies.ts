/**
 * node-redis replies arrive typed by RESP version and type mapping; these read
 * them as `unknown` and check the shape we rely on, so a change of protocol
 * surfaces as a QueueError rather than as undefined fields.
 */
import { Result } from "effect"

export interface RawEntry {
  readonly id: string
  readonly fields: Readonly<Record<string, string>>
}

export interface ClaimedEntry extends RawEntry {
  readonly deliveries: number
}

type Decoded<A> = Result.Result<A, string>

const isObject = (u: unknown): u is { readonly [key: string]: unknown } => typeof u === "object" && u !== null

const asString = (u: unknown): string | undefined =>
  typeof u === "string" ? u : u instanceof Uint8Array ? Buffer.from(u).toString("utf8") : undefined

const fieldsOf = (u: unknown): Decoded<Readonly<Record<string, string>>> => {
  if (!isObject(u)) return Result.fail("message fields are not an object")
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(u)) {
    const s = asString(value)
    if (s === undefined) return Result.fail(`field ${key} is not a string`)
    out[key] = s
  }
  return Result.succeed(out)
}

/** `[f1, v1, f2, v2, ...]`, as Lua hands entries back. */
const flatFieldsOf = (u: unknown): Decoded<Readonly<Record<string, string>>> => {
  if (!Array.isArray(u) || u.length % 2 !== 0) return Result.fail("entry fields are not a flat list of pairs")
  const out: Record<string, string> = {}
  for (let i = 0; i < u.length; i += 2) {
    const key = asString(u[i])
    const value = asString(u[i + 1])
    if (key === undefined || value === undefined) return Result.fail("entry field is not a string")
    out[key] = value
  }
  return Result.succeed(out)
}

/** `{ id, message }`, the shape of XRANGE entries and of the messages of XREAD(GROUP). */
const entryOf = (u: unknown): Decoded<RawEntry> => {
  if (!isObject(u)) return Result.fail("entry is not an object")
  const id = asString(u["id"])
  if (id === undefined) return Result.fail("entry id is not a string")
  return Result.map(fieldsOf(u["message"]), (fields) => ({ id, fields }))
}

export const entries = (reply: unknown): Decoded<ReadonlyArray<RawEntry>> =>
  Array.isArray(reply) ? Result.all(reply.map(entryOf)) : Result.fail("reply is not a list of entries")

/** XREAD / XREADGROUP on one stream: `null` on timeout, else `[{ name, messages }]`. */
export const streamEntries = (reply: unknown): Decoded<ReadonlyArray<RawEntry>> => {
  if (reply === null) return Result.succeed([])
  if (!Array.isArray(reply)) return Result.fail("reply is neither null nor a list of streams")
  return Result.map(
    Result.all(reply.map((stream: unknown) => isObject(stream) ? entries(stream["messages"]) : Result.fail("stream is not an object"))),
    (perStream) => perStream.flat()
  )
}

/** The replies of a transaction of XADDs: one id each. */
export const ids = (reply: unknown, expected: number): Decoded<ReadonlyArray<string>> => {
  if (!Array.isArray(reply) || reply.length !== expected) return Result.fail(`expected ${expected} replies`)
  const out: Array<string> = []
  for (const item of reply) {
    const id = asString(item)
    if (id === undefined) return Result.fail("reply is not an id")
    out.push(id)
  }
  return Result.succeed(out)
}

/** The claim script's `[[id, [f, v, ...], deliveries], ...]`. */
export const claimed = (reply: unknown): Decoded<ReadonlyArray<ClaimedEntry>> => {
  if (!Array.isArray(reply)) return Result.fail("claim reply is not a list")
  return Result.all(reply.map((item: unknown): Decoded<ClaimedEntry> => {
    if (!Array.isArray(item) || item.length !== 3) return Result.fail("claimed entry is not [id, fields, deliveries]")
    const id = asString(item[0])
    const deliveries: unknown = item[2]
    if (id === undefined || typeof deliveries !== "number") return Result.fail("claimed entry has a bad id or count")
    return Result.map(flatFieldsOf(item[1]), (fields) => ({ id, fields, deliveries }))
  }))
}
