import { Database } from "@retail/store"
import { Effect, Option } from "effect"
import type { PersistThreadSettings } from "./PersistThreadSettings.ts"
import { chooseQueue, databaseLocation, type InvalidQueueChoice, type QueueSettings } from "./QueueChoice.ts"

export interface PlacementSettings extends QueueSettings {
  readonly persistThread: boolean
  readonly persistThreadNice: number
  readonly persistYieldLagMs: number
  readonly persistYieldMaxMs: number
  readonly databasePoolSize: number
  readonly redisPublishTimeoutMs: number
}

/** Where the batch workers run, and why, for the start-up log. */
export type WorkersPlacement =
  | { readonly _tag: "Thread"; readonly settings: Omit<PersistThreadSettings, "settings"> }
  | { readonly _tag: "EventLoop"; readonly reason: string }

/**
 * On a thread of their own (PERSIST_THREAD, the default) when the thread can reach what the server
 * reaches: a database server (DATABASE_URL, or the embedded one's socket) and a queue outside this
 * thread (Redis, or tables of that database). The in-process queue and the in-memory PGlite live in
 * the event loop's thread and cannot be shared with another, so there the workers stay beside them.
 * The thread's pool: a connection per worker, one for the reclaimer and one for readiness checks,
 * at most DATABASE_POOL_SIZE.
 */
export const placeWorkers = (settings: PlacementSettings, workers: number): Effect.Effect<WorkersPlacement, InvalidQueueChoice> =>
  Effect.map(chooseQueue(settings), (queue): WorkersPlacement => {
    if (!settings.persistThread) return { _tag: "EventLoop", reason: "PERSIST_THREAD=false" }
    if (queue === "memory") return { _tag: "EventLoop", reason: "the in-process queue (QUEUE=memory) lives on the event loop's thread" }
    const url = Database.sharedUrl({ url: settings.databaseUrl, dataDir: settings.dataDir })
    if (Option.isNone(url)) return { _tag: "EventLoop", reason: "the in-memory PGlite (DATA_DIR=memory://) serves this thread alone" }
    return {
      _tag: "Thread",
      settings: {
        databaseUrl: url.value,
        poolSize: Math.min(settings.databasePoolSize, workers + 2),
        queue,
        redisUrl: Option.getOrElse(settings.redisUrl, () => ""),
        redisPublishTimeoutMs: settings.redisPublishTimeoutMs,
        databaseLocation: databaseLocation(settings),
        nice: settings.persistThreadNice,
        yieldLagMs: settings.persistYieldLagMs,
        yieldMaxMs: settings.persistYieldMaxMs,
        stdoutIsTty: process.stdout.isTTY === true
      }
    }
  })
