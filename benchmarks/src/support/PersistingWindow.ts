import type { LoadResult } from "./Autocannon.ts"
import { FINAL, loadState } from "./Http.ts"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface PersistingWindow<A> {
  /** What `measure` answered. */
  readonly measured: A
  /** Seconds the measured load ran: its requests over its rate. */
  readonly windowSeconds: number
  /** Share of that window the product load was still persisting: below 1, it ended inside it (too small to cover it). */
  readonly persistingShare: number
}

/**
 * A capacity load (`measure`, whose LoadResult `loadOf` reads) run while product load
 * `processCode` persists, its state polled every 100 ms meanwhile: how much of the window the
 * product load covered. The measured load starts as the caller's upload got its 200.
 */
export const whileLoadPersists = async <A>(
  target: { readonly baseUrl: string; readonly processCode: string; readonly token: string },
  measure: () => Promise<A>,
  loadOf: (measured: A) => LoadResult
): Promise<PersistingWindow<A>> => {
  let finishedAt: number | undefined
  let polling = true
  const poller = (async () => {
    while (polling && finishedAt === undefined) {
      const state = await loadState(target.baseUrl, target.processCode, target.token)
      if (FINAL.has(state.status)) finishedAt = performance.now()
      else await sleep(100)
    }
  })()
  const measured = await measure().finally(() => {
    polling = false
  })
  const ended = performance.now()
  await poller
  const load = loadOf(measured)
  const windowSeconds = load.requests / load.requestsPerSecond
  const windowStart = ended - windowSeconds * 1000
  const persistingShare = finishedAt === undefined ? 1 : Math.min(1, Math.max(0, (finishedAt - windowStart) / (windowSeconds * 1000)))
  return { measured, windowSeconds, persistingShare }
}
