import { Option, Order } from "effect"

/** A Redis stream id, `${ms}-${seq}`, as two numbers ordered like Redis orders them. */
export interface StreamId {
  readonly ms: number
  readonly seq: number
}

export const make = (ms: number, seq: number): StreamId => ({ ms, seq })

export const zero: StreamId = make(0, 0)

export const order: Order.Order<StreamId> = Order.combine(
  Order.mapInput(Order.Number, (id: StreamId) => id.ms),
  Order.mapInput(Order.Number, (id: StreamId) => id.seq)
)

export const format = (id: StreamId): string => `${id.ms}-${id.seq}`

const pattern = /^(\d+)(?:-(\d+))?$/

/** Parses "ms-seq" or "ms" (seq 0), as XREAD and XACK accept them. */
export const parse = (input: string): Option.Option<StreamId> => {
  const match = pattern.exec(input)
  if (match === null) return Option.none()
  const ms = Number(match[1])
  const seq = match[2] === undefined ? 0 : Number(match[2])
  return Number.isSafeInteger(ms) && Number.isSafeInteger(seq) ? Option.some(make(ms, seq)) : Option.none()
}

/** The id Redis would give an entry appended at `now` after `last` (time never goes backwards). */
export const next = (last: StreamId, now: number): StreamId =>
  now > last.ms ? make(now, 0) : make(last.ms, last.seq + 1)
