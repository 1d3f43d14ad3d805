import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Api } from "@retail/api"
import { decodeDeliveryRequestA, evaluateVariantA } from "@retail/capacity"
import { Clock, Effect, Either } from "effect"
import { CapacityConfig } from "../CapacityConfig.ts"
import { CapacityNetwork } from "../CapacityNetwork.ts"

const plain = (status: number, body: string) => HttpServerResponse.text(body, { status })

const UNAUTHORIZED = plain(401, "Unauthorized: send Authorization: Bearer <api-key>")
const INTERNAL = plain(500, "Internal server error: the delivery date could not be computed")

const bearerKey = (header: string | undefined): string | undefined =>
  header !== undefined && header.startsWith("Bearer ") ? header.slice(7).trim() : undefined

const parseJson = (text: string): Either.Either<unknown, string> => {
  try {
    return Either.right(JSON.parse(text) as unknown)
  } catch (error) {
    return Either.left(`Bad request: the body is not valid JSON (${error instanceof Error ? error.message : String(error)})`)
  }
}

/**
 * POST /v1/delivery/capacity, variant A: checkout's hot path. Raw handler (no schema decode of the
 * payload by the framework, no middleware, no span, no log): key check in a Set, one JSON.parse,
 * one decode, the engine on the current snapshot (a Ref read, no lock), one JSON.stringify.
 */
export const DeliveryCapacityHttp = HttpApiBuilder.group(Api, "deliveryCapacity", (handlers) =>
  Effect.gen(function*() {
    const config = yield* CapacityConfig
    const network = yield* CapacityNetwork
    const options = { horizonDays: config.horizonDays, deliveryDatesCount: config.deliveryDatesCount }
    return handlers.handleRaw("deliveryCapacity", ({ request }) => {
      const key = bearerKey(request.headers["authorization"])
      if (key === undefined || !config.apiKeys.has(key)) return Effect.succeed(UNAUTHORIZED)
      return Effect.gen(function*() {
        const parsed = parseJson(yield* request.text)
        if (Either.isLeft(parsed)) return plain(400, parsed.left)
        const decoded = decodeDeliveryRequestA(parsed.right)
        if (Either.isLeft(decoded)) return plain(400, `Bad request: ${decoded.left.message}`)
        const snapshot = yield* network.snapshot
        const now = yield* Clock.currentTimeMillis
        const results = evaluateVariantA(snapshot, decoded.right, now, options)
        if (Either.isLeft(results)) return plain(404, `Not found: ${results.left.message}`)
        return HttpServerResponse.text(JSON.stringify(results.right), { contentType: "application/json" })
      }).pipe(Effect.catchAllCause(() => Effect.succeed(INTERNAL)))
    })
  }))
