import { forwardMetricUpdates, MetricsConfig, type MetricUpdate } from "@retail/metrics"
import { metered, PostgresStreamQueue, QueueTracing, RedisStreamQueue, StreamQueue } from "@retail/queue"
import { BatchPacing, UploadService } from "@retail/service-upload"
import { Database, LoadRepository, ProductRepository } from "@retail/store"
import { Cause, ConfigProvider, Effect, Exit, Fiber, Layer, Option, Schema } from "effect"
import { setPriority } from "node:os"
import { parentPort, workerData } from "node:worker_threads"
import { formatFor, LoggingConfig, loggingWith } from "./Logging.ts"
import { eventLoopPing } from "./EventLoopPing.ts"
import { loopPacing } from "./LoopPacing.ts"
import { PersistThreadSettings, ToPersistThread } from "./PersistThreadSettings.ts"
import { TracingLive } from "./Tracing.ts"

/**
 * The batch workers' thread (PersistThreadHost.ts starts it): the same BatchWorkers as on the event
 * loop, over a pool and a queue client of its own on the server's database and queue, so that
 * decoding a batch, encoding its rows and the driver's work stay off the thread that answers
 * checkout. Its metrics go to the server's registry (it has no /metrics of its own), coalesced per
 * turn of its event loop. "Stop" ends it as a shutdown ends the workers on the event loop.
 */
const port = parentPort
if (port === null) throw new Error("PersistThread.ts runs as a worker thread (PersistThreadHost.ts)")
const settings = Schema.decodeUnknownSync(PersistThreadSettings)(workerData)

let pending: Array<MetricUpdate> = []
const flush = () => {
  if (pending.length === 0) return
  port.postMessage({ _tag: "Metrics", updates: pending })
  pending = []
}
forwardMetricUpdates((update) => {
  if (pending.length === 0) setImmediate(flush)
  pending.push(update)
})

const database = Database.layer({ url: Option.some(settings.databaseUrl), dataDir: "", poolSize: settings.poolSize })

const chosenQueue = settings.queue === "redis"
  ? RedisStreamQueue.layer({ url: settings.redisUrl, publishTimeoutMs: settings.redisPublishTimeoutMs })
  : PostgresStreamQueue.layer({ location: settings.databaseLocation }).pipe(Layer.provide(database))

const queue = QueueTracing.traced(Layer.unwrap(Effect.map(MetricsConfig, ({ enabled }) =>
  enabled ? Layer.effect(StreamQueue, Effect.flatMap(StreamQueue, metered)).pipe(Layer.provide(chosenQueue)) : chosenQueue)))

// Before each batch the thread asks how late the server's event loop answers, and gives way while it is behind on checkout.
const eventLoop = eventLoopPing((ping) => port.postMessage(ping))
const pacing = Layer.succeed(BatchPacing, loopPacing(eventLoop.ping, { lagMs: settings.yieldLagMs, maxWaitMs: settings.yieldMaxMs }))

const workers = UploadService.batchWorkers.pipe(
  Layer.provide(pacing),
  Layer.provide(Layer.mergeAll(ProductRepository.layer, LoadRepository.layer)),
  Layer.provide(Layer.merge(database, queue))
)

const logging = Layer.unwrap(Effect.map(LoggingConfig, ({ format, level }) =>
  loggingWith(formatFor(Option.getOrUndefined(format), settings.stdoutIsTty), level)))

/**
 * Below the event loop's priority: on a machine whose cores are all busy (PostgreSQL, Redis and the
 * server share two), the scheduler gives the thread that answers checkout its slices first, and the
 * workers the rest; with a core to spare the nice value changes nothing. Linux keeps a nice value per
 * thread, and `setPriority(0, …)` sets the calling thread's.
 */
const lowerPriority = Effect.try({ try: () => setPriority(0, settings.nice), catch: (error) => error }).pipe(
  Effect.catch((error) => Effect.logWarning(`could not set the batch workers' thread's nice value to ${settings.nice}`, error))
)

const running = Effect.runFork(
  Effect.andThen(lowerPriority, Layer.launch(workers)).pipe(
    Effect.annotateLogs({ thread: "persist" }),
    Effect.provide(TracingLive),
    Effect.provide(logging),
    Effect.catchCause((cause) => Cause.hasInterruptsOnly(cause) ? Effect.interrupt : Effect.logError("batch workers' thread failed", cause).pipe(
      Effect.provide(logging),
      Effect.andThen(Effect.failCause(cause))
    )),
    // The server's configuration, not this thread's environment: a test gives the server its settings as a ConfigProvider.
    Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(settings.settings)))
  )
)

const decodeMessage = Schema.decodeUnknownOption(ToPersistThread)
port.on("message", (message: unknown) => {
  const decoded = decodeMessage(message)
  if (Option.isNone(decoded)) return
  if (decoded.value._tag === "Stop") Effect.runFork(Fiber.interrupt(running))
  else eventLoop.answered(decoded.value.id, decoded.value.checkout)
})
// From here a stop is heard: before, the thread was loading its modules, and the host ends it outright.
port.postMessage({ _tag: "Ready" })

running.addObserver((exit) => {
  flush()
  forwardMetricUpdates(undefined)
  // An interruption is the stop asked for; anything else the host reports and restarts.
  if (!(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause))) process.exitCode = 1
  port.close()
  // The thread ends with its workers, their finalizers done: whatever a client left behind (a Redis
  // client still reconnecting to a server that is down) must neither hold a stop until the host's
  // deadline nor keep a failed thread from being restarted. In a worker thread, process.exit ends the thread.
  process.exit()
})
