import { Layer } from "effect"
import { BatchWorkers } from "./BatchWorkers.ts"
import { CsvJoinPool } from "./files/CsvJoinPool.ts"
import { FileLoadPublisher } from "./files/FileLoadPublisher.ts"
import { JsonValidationPool } from "./files/JsonValidationPool.ts"
import { FilesHttp } from "./http/FilesHttp.ts"
import { InternalFilesHttp } from "./http/InternalFilesHttp.ts"
import { LoadsHttp } from "./http/LoadsHttp.ts"
import { ProductsHttp } from "./http/ProductsHttp.ts"
import { LoadIntake } from "./LoadIntake.ts"
import { LoadReconciler } from "./LoadReconciler.ts"
import { OutboxRelay } from "./OutboxRelay.ts"
import { ProductPublisher } from "./ProductPublisher.ts"
import { UploadConfig } from "./UploadConfig.ts"

/**
 * The upload endpoints, ready to be added to the HttpApi; FileLoadSlots and the JsonValidationPool
 * come from outside (shared with the internal listener).
 */
export const http = Layer.mergeAll(ProductsHttp, FilesHttp, LoadsHttp).pipe(
  Layer.provide(Layer.mergeAll(LoadIntake.layer, FileLoadPublisher.layer, CsvJoinPool.layer)),
  Layer.provide(ProductPublisher.layer),
  Layer.provide(UploadConfig.layer)
)

/** The endpoints of the internal listener, ready to be added to the InternalApi; its FileLoadSlots come from outside. */
export const internalHttp = InternalFilesHttp.pipe(
  Layer.provide(FileLoadPublisher.layer),
  Layer.provide(ProductPublisher.layer),
  Layer.provide(UploadConfig.layer)
)

/** Every process's heartbeat and its reconciliation of the loads not yet final (workers or not). */
export const reconciler = LoadReconciler.layer.pipe(Layer.provide(UploadConfig.layer))

/** Workers persisting product batches and the relay of load events. */
export const background = Layer.mergeAll(BatchWorkers, OutboxRelay).pipe(Layer.provide(UploadConfig.layer))

/**
 * The threads of JSON file loads, for the infrastructure layer: shared by both listeners, and
 * released after them, once the requests in flight drained (a pool closed with the endpoints
 * would fail the uploads the shutdown grace period lets finish).
 */
export const jsonValidationPool = JsonValidationPool.layer.pipe(Layer.provide(UploadConfig.layer))
