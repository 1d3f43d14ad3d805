import { Layer } from "effect"
import { JsonValidationPool } from "./json/JsonValidationPool.ts"
import { LoadHistorySweep } from "./loads/LoadHistorySweep.ts"
import { LoadReconciler } from "./loads/LoadReconciler.ts"
import { BatchWorkers } from "./persist/BatchWorkers.ts"
import { OutboxRelay } from "./persist/OutboxRelay.ts"
import { StaleSpoolsRemoval } from "./spool/StaleSpools.ts"
import { UploadConfig } from "./UploadConfig.ts"

// The handlers (ProductsHttp, FilesHttp, LoadsHttp, InternalFilesHttp) each bring their feature's
// facade; what runs beside them is here.

/** Every process's heartbeat and its reconciliation of the loads not yet final (workers or not). */
export const reconciler = LoadReconciler.layer.pipe(Layer.provide(UploadConfig.layer))

/** Every process's sweep of the records of loads finished longer ago than LOAD_RETENTION_DAYS. */
export const historySweep = LoadHistorySweep.layer.pipe(Layer.provide(UploadConfig.layer))

/** At start, the spool folders of file loads that a killed process left in SPOOL_DIR. */
export const staleSpools = StaleSpoolsRemoval.pipe(Layer.provide(UploadConfig.layer))

/** Workers persisting product batches and the relay of load events. */
export const background = Layer.mergeAll(BatchWorkers, OutboxRelay).pipe(Layer.provide(UploadConfig.layer))

/** The workers alone, for a thread of their own (services/server PersistThread.ts). */
export const batchWorkers = BatchWorkers.pipe(Layer.provide(UploadConfig.layer))

/** The relay of load events alone, for a process whose workers persist on another thread. */
export const outboxRelay = OutboxRelay.pipe(Layer.provide(UploadConfig.layer))

/**
 * The threads of JSON file loads, for the infrastructure layer: shared by both listeners, and
 * released after them, once the requests in flight drained (a pool closed with the endpoints
 * would fail the uploads the shutdown grace period lets finish).
 */
export const jsonValidationPool = JsonValidationPool.layer.pipe(Layer.provide(UploadConfig.layer))
