import { Result, Schema } from "effect"
import { BenchmarkFailure } from "../Benchmark.ts"
import { post } from "./Http.ts"
import { BENCH_CAPACITY_KEY } from "./Tokens.ts"

export interface StockChange {
  readonly node: string
  readonly sku: string
  readonly units: number
}

/** The part of POST /v1/stock/changes's 200 answer a benchmark counts (docs/capacity.md, "Stock fed as deltas"). */
const StockFed = Schema.Struct({ rows: Schema.Number, applied: Schema.Number })
const decodeStockFed = Schema.decodeUnknownResult(Schema.fromJsonString(StockFed))

const headers = { authorization: `Bearer ${BENCH_CAPACITY_KEY}` }

/** One batch through POST /v1/stock/changes: its rows and the rows it set (the others were at this sequence or newer). */
export const postStockChanges = async (
  baseUrl: string,
  sequence: number,
  changes: ReadonlyArray<StockChange>
): Promise<typeof StockFed.Type> => {
  const answer = await post(`${baseUrl}/v1/stock/changes`, JSON.stringify({ sequence, changes }), headers)
  if (answer.status !== 200) throw new BenchmarkFailure(`POST /v1/stock/changes answered ${answer.status}: ${answer.text.slice(0, 300)}`)
  return Result.getOrElse(decodeStockFed(answer.text), () => {
    throw new BenchmarkFailure(`POST /v1/stock/changes: unexpected answer ${answer.text.slice(0, 300)}`)
  })
}

export interface FeedTally {
  readonly batches: number
  readonly rowsSent: number
  /** Rows the server set (a row already at a newer sequence is left alone and not counted). */
  readonly rowsApplied: number
  /** From the first batch sent to the feed's end (the batch in flight at stop answered). */
  readonly seconds: number
}

export interface StockFeeder {
  /** Ends the feed after the batch in flight; rejects with the first batch that failed. */
  readonly stop: () => Promise<FeedTally>
}

export interface FeedOptions {
  readonly baseUrl: string
  /** Batch b is due `everyMs` × b after the start. */
  readonly everyMs: number
  readonly batchOf: (b: number) => ReadonlyArray<StockChange>
  /** Each batch's sequence: above every earlier batch's on the same rows, or the server leaves them alone. */
  readonly nextSequence: () => number
  /** Batches sent and not answered yet, at most (default 1: each waits for the one before). */
  readonly inFlight?: number
}

/**
 * Stock deltas arriving in the background, as a feed would send them: each batch due at a fixed
 * time from the start and sent then, unless `inFlight` batches are still unanswered (then as soon
 * as one is), so the rate holds while the server keeps up; until stopped.
 */
export const startStockFeeder = (options: FeedOptions): StockFeeder => {
  const inFlight = Math.max(1, options.inFlight ?? 1)
  let running = true
  let wake: (() => void) | undefined
  let sent = 0
  let batches = 0
  let rowsSent = 0
  let rowsApplied = 0
  let failure: unknown
  const pending = new Set<Promise<void>>()
  const started = performance.now()
  const send = (b: number) => {
    const changes = options.batchOf(b)
    const answered = postStockChanges(options.baseUrl, options.nextSequence(), changes).then(
      (fed) => {
        batches++
        rowsSent += changes.length
        rowsApplied += fed.applied
      },
      (error: unknown) => {
        failure ??= error
        running = false
      }
    ).finally(() => {
      pending.delete(answered)
      wake?.()
    })
    pending.add(answered)
  }
  const loop = (async () => {
    while (running) {
      if (pending.size >= inFlight) await Promise.race(pending)
      else {
        const wait = started + sent * options.everyMs - performance.now()
        if (wait > 0) {
          await new Promise<void>((resolve) => {
            wake = resolve
            setTimeout(resolve, wait)
          })
        } else send(sent++)
      }
    }
    await Promise.all(pending)
  })()
  return {
    stop: async () => {
      running = false
      wake?.()
      await loop
      if (failure !== undefined) throw failure
      return { batches, rowsSent, rowsApplied, seconds: (performance.now() - started) / 1000 }
    }
  }
}
