import { Effect, type Scope } from "effect"
import { counterReadOnScrape, gaugeReadOnScrape } from "./Families.ts"

/** What a worker-thread pool tells about itself (piscina's getters). */
export interface WorkerPoolView {
  readonly threads: ReadonlyArray<unknown>
  readonly queueSize: number
  readonly completed: number
  readonly utilization: number
}

/** The pool's threads, queued tasks, completed tasks and utilization, read at scrape while the scope is open. */
export const meterWorkerPool = (pool: string, view: WorkerPoolView): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => [
      gaugeReadOnScrape("worker_pool_threads", "Worker threads alive in a pool (started on demand, stopped when idle)", () => view.threads.length, { pool }),
      gaugeReadOnScrape("worker_pool_queued_tasks", "Tasks waiting for a free worker thread", () => view.queueSize, { pool }),
      gaugeReadOnScrape("worker_pool_utilization", "Share of the pool's capacity used since it started (0 to 1, piscina's utilization)", () => view.utilization, { pool }),
      counterReadOnScrape("worker_pool_tasks_completed_total", "Tasks completed by a pool's threads", () => view.completed, { pool })
    ]),
    (registrations) => Effect.sync(() => registrations.forEach((registration) => registration.remove()))
  ).pipe(Effect.asVoid)
