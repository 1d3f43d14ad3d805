import { Context, Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { FileLoadPublisher } from "../publish/FileLoadPublisher.ts"
import { ProductPublisher } from "../publish/ProductPublisher.ts"
import { UploadConfig } from "../UploadConfig.ts"
import { csvFileLoad } from "./CsvFileLoad.ts"
import { CsvJoinPool } from "./CsvJoinPool.ts"

/**
 * The CSV file loads (`/handle-csv`). What a load runs on is taken when the layer is built and
 * given to each load (a handler's own needs would fall to the router).
 */
export class CsvFileLoads extends Context.Service<CsvFileLoads>()("@retail/upload/CsvFileLoads", {
  make: Effect.gen(function*() {
    const services = Context.pick(UploadConfig, FileLoadPublisher, CsvJoinPool)(
      yield* Effect.context<UploadConfig | FileLoadPublisher | CsvJoinPool>()
    )
    return {
      load: (request: HttpServerRequest.HttpServerRequest, company: string) => csvFileLoad(request, company).pipe(Effect.provideContext(services))
    }
  })
}) {
  /** With its dependencies inside the service (the join threads' pool included). */
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide(Layer.merge(FileLoadPublisher.layer, CsvJoinPool.layer)),
    Layer.provide(ProductPublisher.layer),
    Layer.provide(UploadConfig.layer)
  )
}
