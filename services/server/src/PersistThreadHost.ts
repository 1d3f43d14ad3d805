import { CheckoutTraffic } from "@retail/service-capacity"
import { applyMetricUpdate } from "@retail/metrics"
import { StreamQueue } from "@retail/queue"
import { UploadConfig } from "@retail/service-upload"
import { Config, Duration, Effect, Exit, Layer, Option, Schema } from "effect"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import { PingFromThread, type PersistThreadSettings, THREAD_SETTINGS, type ToPersistThread } from "./PersistThreadSettings.ts"
import { restartForever } from "./ThreadRestarts.ts"

const TsxManifest = Schema.Struct({
  exports: Schema.Struct({ "./esm/api": Schema.Struct({ import: Schema.Struct({ default: Schema.String }) }) })
})

/**
 * tsx's ESM entry point: a thread started on a TypeScript module registers it first (a worker's
 * `--import tsx` is not applied to its own entry), then imports the module.
 */
const tsxEsmApi = (moduleUrl: string): string => {
  const manifest = createRequire(moduleUrl).resolve("tsx/package.json")
  const exported = Schema.decodeUnknownSync(TsxManifest)(JSON.parse(readFileSync(manifest, "utf8")))
  return pathToFileURL(join(dirname(manifest), exported.exports["./esm/api"].import.default)).href
}

/**
 * Starts the thread's module: bundled (dist/server.mjs), the file scripts/buildServer.ts writes
 * beside the bundle, dist/server.persist-thread.mjs; from the TypeScript sources (tsx, vitest),
 * PersistThread.ts beside this file, through tsx.
 */
const spawnWorker = (moduleUrl: string, workerData: PersistThreadSettings): Worker => {
  if (!moduleUrl.endsWith(".ts")) return new Worker(new URL(`${moduleUrl.replace(/\.m?js$/, "")}.persist-thread.mjs`), { workerData })
  const source = new URL("./PersistThread.ts", moduleUrl).href
  const code = `import(${JSON.stringify(tsxEsmApi(moduleUrl))}).then(({ register }) => { register(); return import(${JSON.stringify(source)}) })`
  return new Worker(code, { eval: true, workerData })
}

const MetricUpdates = Schema.Struct({
  _tag: Schema.Literal("Metrics"),
  updates: Schema.Array(Schema.Tuple([
    Schema.Literals(["add", "observe", "set", "modify"]),
    Schema.String,
    Schema.Record(Schema.String, Schema.String),
    Schema.Number
  ]))
})
const decodeMetricUpdates = Schema.decodeUnknownOption(MetricUpdates)
const decodeReady = Schema.decodeUnknownOption(Schema.Struct({ _tag: Schema.Literal("Ready") }))
const decodePing = Schema.decodeUnknownOption(PingFromThread)

interface Thread {
  /** Its exit code, once it has exited. */
  readonly exited: Effect.Effect<number>
  /** The uncaught error it died of, if any. */
  readonly error: () => unknown
  readonly stop: (within: Duration.Duration) => Effect.Effect<void>
}

const startThread = (settings: PersistThreadSettings): Thread => {
  const worker = spawnWorker(import.meta.url, settings)
  let died: unknown = undefined
  let ready = false
  worker.on("error", (error) => {
    died = error
  })
  worker.on("message", (message: unknown) => {
    const ping = decodePing(message)
    // Answered as soon as the event loop gets to it: how late that is paces the thread (LoopPacing.ts).
    if (Option.isSome(ping)) return worker.postMessage({ _tag: "Pong", id: ping.value.id, checkout: CheckoutTraffic.count() } satisfies ToPersistThread)
    const metrics = decodeMetricUpdates(message)
    if (Option.isSome(metrics)) for (const update of metrics.value.updates) applyMetricUpdate(update)
    else if (Option.isSome(decodeReady(message))) ready = true
  })
  const exitCode = new Promise<number>((resolve) => worker.once("exit", resolve))
  const exited = Effect.promise(() => exitCode)
  // Still loading its modules (seconds from the sources under tsx): no worker has started, nothing is in flight.
  const stopStarting = Effect.promise(() => worker.terminate()).pipe(
    Effect.andThen(Effect.logInfo("shutdown: the batch workers' thread was still starting; ended"))
  )
  const stop = (within: Duration.Duration) =>
    ready ? stopGracefully(within) : stopStarting
  const stopGracefully = (within: Duration.Duration) =>
    Effect.sync(() => worker.postMessage({ _tag: "Stop" } satisfies ToPersistThread)).pipe(
      Effect.andThen(exited),
      Effect.timeoutOrElse({
        duration: within,
        orElse: () =>
          Effect.logWarning(`shutdown: the batch workers' thread did not stop within ${Duration.toMillis(within)} ms; terminated (its batch in flight, not acked, is delivered again)`).pipe(
            Effect.andThen(Effect.promise(() => worker.terminate()))
          )
      }),
      Effect.asVoid
    )
  return { exited, error: () => died, stop }
}

/**
 * The batch workers on a thread of their own, supervised: a thread that dies is logged and started
 * again after a second, longer while it keeps dying at start (ThreadRestarts.ts); its batch in
 * flight, not acked, is claimed again after CLAIM_IDLE_MS. On
 * shutdown it is asked to stop, which ends its workers as a shutdown ends them on the event loop (the
 * batch in flight finishes, or is left pending); past PERSIST_TIMEOUT_MS + 5 s it is terminated.
 * Its lifetime is this layer's, so it stops before the database and the queue the server holds.
 */
/** THREAD_SETTINGS as this server's configuration has them (the environment, or what a test provided), those set. */
const threadSettings = Effect.map(
  Effect.forEach(THREAD_SETTINGS, (name) => Effect.map(Config.option(Config.String(name)), (value) => [name, value] as const)),
  (values) => Object.fromEntries(values.flatMap(([name, value]) => (Option.isSome(value) ? [[name, value.value]] : [])))
)

export const persistThread = (placed: Omit<PersistThreadSettings, "settings">) =>
  Layer.effectDiscard(
    Effect.gen(function*() {
      const settings: PersistThreadSettings = { ...placed, settings: yield* threadSettings }
      const config = yield* UploadConfig
      const queue = yield* StreamQueue
      // This process reads the group's backlog for /metrics (MeteredStreamQueue) once it knows the group.
      yield* queue.ensureGroup(config.batchesStream, config.consumerGroup).pipe(
        Effect.catch((error) => Effect.logWarning(`could not create the consumer group ${config.consumerGroup} yet; the workers' thread will`, error))
      )
      const stopWithin = Duration.millis(config.persistTimeoutMs + 5_000)
      const runOnce = Effect.acquireUseRelease(
        Effect.sync(() => startThread(settings)),
        (thread) => Effect.map(thread.exited, (code) => ({ code, error: thread.error() })),
        (thread, exit) => (Exit.isFailure(exit) ? thread.stop(stopWithin) : Effect.void)
      )
      yield* Effect.forkScoped(restartForever("the batch workers' thread", runOnce))
      yield* Effect.logInfo(`batch workers: ${config.workers} on a thread of their own (PERSIST_THREAD=true)`)
    })
  ).pipe(Layer.provide(UploadConfig.layer))
