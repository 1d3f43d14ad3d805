import { Api, CurrentPrincipal } from "@retail/api"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { LoadLookup } from "./LoadLookup.ts"

export const LoadsHttp = HttpApiBuilder.group(Api, "loads", (handlers) =>
  Effect.gen(function*() {
    const lookup = yield* LoadLookup
    return handlers
      .handle("getLoad", ({ params }) => Effect.flatMap(CurrentPrincipal, (principal) => lookup.load(principal, params.processCode)))
      .handle("getLoadErrors", ({ params, query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => lookup.errors(principal, params.processCode, query)))
  })).pipe(Layer.provide(LoadLookup.layer))
