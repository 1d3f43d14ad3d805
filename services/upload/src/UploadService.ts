import { Layer } from "effect"
import { BatchWorkers } from "./persist/BatchWorkers.ts"
import { CsvFileLoads } from "./csv/CsvFileLoads.ts"
import { CsvJoinPool } from "./csv/CsvJoinPool.ts"
import { FileLoadPublisher } from "./publish/FileLoadPublisher.ts"
import { JsonFileLoads } from "./json/JsonFileLoads.ts"
import { JsonValidationPool } from "./json/JsonValidationPool.ts"
import { FilesHttp } from "./FilesHttp.ts"
import { InternalFilesHttp } from "./json/InternalFilesHttp.ts"
import { LoadLookup } from "./loads/LoadLookup.ts"
import { LoadsHttp } from "./loads/LoadsHttp.ts"
import { ProductLoads } from "./products/ProductLoads.ts"
import { ProductsHttp } from "./products/ProductsHttp.ts"
import { LoadIntake } from "./products/LoadIntake.ts"
import { LoadReconciler } from "./loads/LoadReconciler.ts"
import { OutboxRelay } from "./persist/OutboxRelay.ts"
import { ProductPublisher } from "./publish/ProductPublisher.ts"
import { UploadConfig } from "./UploadConfig.ts"

/**
 * The upload endpoints, ready to be added to the HttpApi; FileLoadSlots and the JsonValidationPool
 * come from outside (shared with the internal listener).
 */
export const http = Layer.mergeAll(ProductsHttp, FilesHttp, LoadsHttp).pipe(
  Layer.provide(Layer.mergeAll(ProductLoads.layer, JsonFileLoads.layer, CsvFileLoads.layer, LoadLookup.layer)),
  Layer.provide(Layer.mergeAll(LoadIntake.layer, FileLoadPublisher.layer, CsvJoinPool.layer)),
  Layer.provide(ProductPublisher.layer),
  Layer.provide(UploadConfig.layer)
)

/** The endpoints of the internal listener, ready to be added to the InternalApi; its FileLoadSlots come from outside. */
export const internalHttp = InternalFilesHttp.pipe(
  Layer.provide(JsonFileLoads.layer),
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
