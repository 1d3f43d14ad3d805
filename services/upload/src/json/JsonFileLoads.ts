import { Context, Effect, Layer, type Scope } from "effect"
import type { HttpServerRequest } from "effect/http"
import { FileLoadPublisher } from "../publish/FileLoadPublisher.ts"
import { ProductPublisher } from "../publish/ProductPublisher.ts"
import { UploadConfig } from "../UploadConfig.ts"
import { COMPANY, companyField } from "./CompanyField.ts"
import { jsonFileLoad } from "./JsonFileLoad.ts"
import { JsonValidationPool } from "./JsonValidationPool.ts"

/**
 * The JSON file loads of both listeners. What a load runs on is taken when the layer is built and
 * given to each load (a handler's own needs would fall to the router).
 */
export class JsonFileLoads extends Context.Service<JsonFileLoads>()("@retail/upload/JsonFileLoads", {
  make: Effect.gen(function*() {
    const services = Context.pick(UploadConfig, FileLoadPublisher, JsonValidationPool)(
      yield* Effect.context<UploadConfig | FileLoadPublisher | JsonValidationPool>()
    )
    return {
      /** `/handle-json`: the company is the caller's. */
      load: (request: HttpServerRequest.HttpServerRequest, company: string) =>
        jsonFileLoad(request, "HANDLE_JSON", () => Effect.succeed(company), { fields: [] }).pipe(Effect.provideContext(services)),
      /**
       * `/handle-json-int`: the company is a text part, before or after the file (a file first is kept
       * until the body is read); `admit` runs in the load's scope once it is read.
       */
      loadNamingCompany: <E>(request: HttpServerRequest.HttpServerRequest, admit: (company: string) => Effect.Effect<void, E, Scope.Scope>) =>
        jsonFileLoad(request, "HANDLE_JSON_INT", (fields) => Effect.tap(companyField(fields), admit), { fields: [COMPANY], companyField: COMPANY }).pipe(
          Effect.provideContext(services)
        )
    }
  })
}) {
  /** With its dependencies inside the service; the JsonValidationPool comes from outside (shared by both listeners). */
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide(FileLoadPublisher.layer),
    Layer.provide(ProductPublisher.layer),
    Layer.provide(UploadConfig.layer)
  )
}
