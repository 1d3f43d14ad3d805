import { type ErrorsPageParams, InvalidRequest, LoadNotFound, type Principal, Scopes, StorageFailed } from "@retail/api"
import { LoadRepository, type StoreError } from "@retail/store"
import { Context, Effect, Layer, Option } from "effect"
import { HttpApiError } from "effect/http-api"
import { errorsPageQuery } from "./ErrorsPageQuery.ts"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const storageFailed = (error: StoreError) =>
  Effect.andThen(
    Effect.logError("reading a load failed", error),
    Effect.fail(new StorageFailed({ message: "The database is unavailable; retry later" }))
  )

/** A load and its errors as its own company's callers see them. */
export class LoadLookup extends Context.Service<LoadLookup>()("@retail/upload/LoadLookup", {
  make: Effect.gen(function*() {
    const loads = yield* LoadRepository

    /** A load is visible only to callers of its own company; any other gets the same 404 as an unknown code. */
    const visibleLoad = (principal: Principal, processCode: string) =>
      Effect.gen(function*() {
        if (!principal.scopes.has(Scopes.productsRead) && !principal.scopes.has(Scopes.productsWrite)) {
          return yield* Effect.fail(new HttpApiError.Forbidden({}))
        }
        const notFound = new LoadNotFound({ message: `No load with process code ${processCode}` })
        if (!UUID.test(processCode)) return yield* Effect.fail(notFound)
        const load = yield* loads.find(processCode.toLowerCase()).pipe(Effect.catchTag("StoreError", storageFailed))
        return yield* Option.match(Option.filter(load, (l) => l.company === principal.company), {
          onNone: () => Effect.fail(notFound),
          onSome: Effect.succeed
        })
      })

    const errors = (principal: Principal, processCode: string, query: typeof ErrorsPageParams.Type) =>
      Effect.gen(function*() {
        const load = yield* visibleLoad(principal, processCode)
        const page = yield* errorsPageQuery(query)
        return yield* loads.errors(load.processCode, page).pipe(
          Effect.catchTag("InvalidCursor", (error) => Effect.fail(new InvalidRequest({ message: `cursor: ${error.message} (got ${error.cursor})` }))),
          Effect.catchTag("StoreError", storageFailed)
        )
      })

    return { load: visibleLoad, errors }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
