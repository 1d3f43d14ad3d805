// Candidate 5 of issue 19 step 1: POST /v1/load-products as an Effect 4 `HttpApi` endpoint whose
// payload the framework decodes with the contract's schema (packages/api/src/ProductsApi.ts's
// ProductsList, `{ products: Array(Unknown) }`, written again in Effect 4's Schema), then handed to
// today's LoadIntake (validate, record, publish) running on Effect 3 in a runtime of its own in this
// process (benchmarks/src/support/LoadIntakeHost.ts: promises and plain values cross, no Effect value).
// Not carried over from today's endpoint: its limit on JSON values (measureJson) and invalid-UTF-8
// refusal (JsonBody.ts), the rate limit of the Authentication middleware, and its error bodies.
import { Effect, Layer, Schema } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { type HostAnswer, makeLoadIntakeHost } from "../../src/support/LoadIntakeHost.ts"
import { listen } from "./Listen.ts"

const host = await makeLoadIntakeHost()

const respond = (answer: HostAnswer) =>
  HttpServerResponse.text(answer.body, { status: answer.status, contentType: "application/json" })

const ProductsList = Schema.Struct({ products: Schema.Array(Schema.Unknown) })

class ProductsApi extends HttpApiGroup.make("products")
  .add(HttpApiEndpoint.post("loadProducts", "/load-products", { payload: ProductsList }))
  .prefix("/v1")
{}

const Api = HttpApi.make("upload").add(ProductsApi)

const ProductsLive = HttpApiBuilder.group(Api, "products", (handlers) =>
  handlers.handle("loadProducts", ({ payload, request }) =>
    Effect.gen(function*() {
      const company = yield* Effect.promise(() => host.company(request.headers["authorization"]))
      if (typeof company !== "string") return respond(company)
      return respond(yield* Effect.promise(() => host.accept(company, payload.products)))
    })))

listen(HttpRouter.serve(HttpApiBuilder.layer(Api).pipe(Layer.provide(ProductsLive)), { disableLogger: true, disableListenLog: true }))
