import { figure, type Figure } from "../Benchmark.ts"
import { quantile } from "../Stats.ts"

/** Status 0: no HTTP answer (connection refused or reset). */
export const NO_ANSWER = 0

/**
 * What one kind of soak request got: answers by status, latencies of every answer, requests not
 * sent because too many were still in flight, and the first unexpected answer (for the failure).
 */
export class Tally {
  readonly statuses = new Map<number, number>()
  readonly latenciesMs: Array<number> = []
  notSent = 0
  /** Products the intake accepted (loads only). */
  acceptedProducts = 0
  firstUnexpected: string | undefined

  constructor(readonly kind: string, readonly expected: ReadonlySet<number> = new Set([200])) {}

  record(status: number, ms: number, detail: () => string): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1)
    this.latenciesMs.push(ms)
    if (!this.expected.has(status)) this.firstUnexpected ??= `${this.kind}: ${status === NO_ANSWER ? "no answer" : status} ${detail().slice(0, 300)}`
  }

  /** Adds what autocannon counted (its latencies are its own percentiles, given to `figures`). */
  addCounts(statuses: Readonly<Record<string, number>>, noAnswer: number): void {
    for (const [status, count] of Object.entries(statuses)) this.statuses.set(Number(status), (this.statuses.get(Number(status)) ?? 0) + count)
    if (noAnswer > 0) this.statuses.set(NO_ANSWER, (this.statuses.get(NO_ANSWER) ?? 0) + noAnswer)
    const unexpected = [...this.statuses.entries()].find(([status]) => !this.expected.has(status))
    if (unexpected !== undefined) this.firstUnexpected ??= `${this.kind}: ${unexpected[1]} answers ${unexpected[0] === NO_ANSWER ? "missing (errors or timeouts)" : `with status ${unexpected[0]}`}`
  }

  get answers(): number {
    return [...this.statuses.values()].reduce((sum, n) => sum + n, 0)
  }

  get successes(): number {
    return [...this.statuses.entries()].filter(([status]) => status >= 200 && status < 300).reduce((sum, [, n]) => sum + n, 0)
  }

  /** Requests, rates, p50/p99 and non-2xx answers by status, over `seconds` of traffic. */
  figures(seconds: number, percentiles?: { readonly p50: number; readonly p99: number }): ReadonlyArray<Figure> {
    const latencies = percentiles ?? (this.latenciesMs.length === 0 ? undefined : { p50: quantile(this.latenciesMs, 0.5), p99: quantile(this.latenciesMs, 0.99) })
    const non2xx = [...this.statuses.entries()].filter(([status]) => status < 200 || status >= 300).sort(([a], [b]) => a - b)
    return [
      figure(`${this.kind}: requests`, "requests", this.answers),
      figure(`${this.kind}: requests/s (2xx)`, "req/s", this.successes / seconds),
      ...(this.acceptedProducts > 0 ? [figure(`${this.kind}: products/s accepted`, "products/s", this.acceptedProducts / seconds)] : []),
      ...(latencies === undefined ? [] : [
        figure(`${this.kind}: p50 latency`, "ms", latencies.p50, { better: "lower" }),
        figure(`${this.kind}: p99 latency`, "ms", latencies.p99, { better: "lower" })
      ]),
      figure(`${this.kind}: non-2xx answers`, "answers", non2xx.reduce((sum, [, n]) => sum + n, 0), { better: "lower" }),
      ...non2xx.map(([status, n]) =>
        figure(`${this.kind}: answers ${status === NO_ANSWER ? "missing (no HTTP answer)" : `with status ${status}`}`, "answers", n, { better: "lower" })),
      ...(this.notSent > 0 ? [figure(`${this.kind}: requests not sent (too many in flight)`, "requests", this.notSent, { better: "lower" })] : [])
    ]
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Sends at a steady rate (open loop: the i-th request is due at i / perSecond, whether or not the
 * earlier ones were answered) until `untilMs` (performance.now()); a request due while `maxInFlight`
 * are still waiting is not sent and counted. `send` records its own outcome in the tally; the first
 * error it throws is thrown once every request sent has ended.
 */
export const paced = async (
  options: { readonly perSecond: number; readonly untilMs: number; readonly maxInFlight: number; readonly tally: Tally },
  send: (index: number) => Promise<void>
): Promise<void> => {
  const start = performance.now()
  const inFlight = new Set<Promise<void>>()
  // A send that throws (not an HTTP answer: those are recorded) fails the soak once the others are in.
  let failure: { readonly error: unknown } | undefined
  for (let index = 0;; index++) {
    const due = start + (index * 1000) / options.perSecond
    if (due >= options.untilMs) break
    await sleep(due - performance.now())
    if (inFlight.size >= options.maxInFlight) {
      options.tally.notSent++
      continue
    }
    const request: Promise<void> = send(index)
      .catch((error: unknown) => {
        failure ??= { error }
      })
      .finally(() => inFlight.delete(request))
    inFlight.add(request)
  }
  await Promise.all(inFlight)
  if (failure !== undefined) throw failure.error
}

/** Runs one request, recording its status and latency; a request with no answer is status 0 (undefined). */
export const timed = async <A extends { readonly status: number; readonly text: string }>(tally: Tally, request: () => Promise<A>): Promise<A | undefined> => {
  const begun = performance.now()
  try {
    const answer = await request()
    tally.record(answer.status, performance.now() - begun, () => answer.text)
    return answer
  } catch (error) {
    tally.record(NO_ANSWER, performance.now() - begun, () => (error instanceof Error ? error.message : String(error)))
    return undefined
  }
}
