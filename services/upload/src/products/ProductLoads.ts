import { InvalidRequest } from "@retail/api"
import { MAX_PRODUCTS_PER_LOAD } from "@retail/domain"
import { Clock, Context, Effect, Layer, Option } from "effect"
import type { HttpServerRequest } from "effect/http"
import { BufferPool } from "../publish/BufferPool.ts"
import { ProductPublisher } from "../publish/ProductPublisher.ts"
import { entryFormatOf, UploadConfig } from "../UploadConfig.ts"
import { JsonValidationPool } from "../json/JsonValidationPool.ts"
import { parseJsonBody, readJsonBodyBytes } from "./JsonBody.ts"
import { LoadIntake } from "./LoadIntake.ts"
import { sharedBuffer, validateProductsBody } from "./ProductsBody.ts"

/**
 * Bodies' buffers kept between bodies: those of 16 in flight at once (a new SharedArrayBuffer is zeroed
 * and faulted in page by page, which cost more than the copy into it); let go after a while without loads.
 */
const BUFFERS_KEPT = 16
const POOL_IDLE_MS = 30_000

const productsOf = (body: unknown) => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return Effect.fail(new InvalidRequest({ message: "The request body must be a JSON object with a products array" }))
  }
  const products: unknown = (body as Record<string, unknown>)["products"]
  if (products === undefined) return Effect.fail(new InvalidRequest({ message: "products: is required" }))
  if (!Array.isArray(products)) return Effect.fail(new InvalidRequest({ message: "products: must be an array" }))
  if (products.length > MAX_PRODUCTS_PER_LOAD) {
    return Effect.fail(
      new InvalidRequest({
        message: `The maximum number of products per load is ${MAX_PRODUCTS_PER_LOAD}; this load has ${products.length}`
      })
    )
  }
  return Effect.succeed(products as ReadonlyArray<unknown>)
}

/** `/load-products`: a JSON body of at most LOAD_PRODUCTS_MAX_BYTES, its products taken in by the intake. */
export class ProductLoads extends Context.Service<ProductLoads>()("@retail/upload/ProductLoads", {
  make: Effect.gen(function*() {
    const intake = yield* LoadIntake
    const config = yield* UploadConfig
    const pool = yield* JsonValidationPool
    const limits = { maxValues: config.loadProductsMaxValues, maxValuesVariable: "LOAD_PRODUCTS_MAX_VALUES" }
    const encodeRows = entryFormatOf(config.batchEntryFormat, "loadProducts") === "columns"
    // Shared memory: the validation threads read the products where they are in the body.
    const bodies = new BufferPool(BUFFERS_KEPT, { allocate: sharedBuffer, idleMs: POOL_IDLE_MS })

    /** The general way: any body, parsed whole and validated on the event loop; every malformed body's answer comes from here. */
    const parsed = (bytes: Uint8Array, company: string, startedAt: number) =>
      Effect.flatMap(Effect.flatMap(parseJsonBody(bytes, limits), productsOf), (products) =>
        intake.accept({ company, source: "LOAD_PRODUCTS", products, startedAt }))

    return {
      load: (request: HttpServerRequest.HttpServerRequest, company: string) =>
        Effect.scoped(Effect.gen(function*() {
          // Before the body is read (the route takes it raw): the load's time counts its upload, as a file load's does.
          const startedAt = yield* Clock.currentTimeMillis
          const bytes = yield* readJsonBodyBytes(request, { maxBytes: config.loadProductsMaxBytes }, bodies)
          const validated = yield* validateProductsBody(bytes, company, { maxValues: config.loadProductsMaxValues, maxProducts: MAX_PRODUCTS_PER_LOAD }, bodies, encodeRows).pipe(
            Effect.provideService(JsonValidationPool, pool)
          )
          return yield* Option.match(validated, {
            onNone: () => parsed(bytes, company, startedAt),
            onSome: (products) => intake.acceptValidated({ company, source: "LOAD_PRODUCTS", startedAt, ...products })
          })
        }))
    }
  })
}) {
  /** With its dependencies inside the service; needs the stores, the queue, the load's owner and the JsonValidationPool from outside. */
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide(LoadIntake.layer),
    Layer.provide(ProductPublisher.layer),
    Layer.provide(UploadConfig.layer)
  )
}
