import {
  Api,
  bodyReadFailure,
  CapacityConflict,
  InvalidRequest,
  isBodyTooLarge,
  NodeNotFound,
  OrderNotFound,
  PayloadTooLarge,
  StorageFailed
} from "@retail/api"
import { formatIssues } from "@retail/capacity"
import { CapacityMetrics } from "@retail/metrics"
import type { StoreError } from "@retail/store"
import { Effect, Layer, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { orderConflict } from "./OrderConflictAnswer.ts"
import { CapacityNetwork } from "../CapacityNetwork.ts"
import { NetworkReplica } from "../NetworkReplica.ts"

/** taken, already_taken (the same order again), refused_capacity and refused_conflict (both 409). */
const countOrder = (outcome: string) => Effect.sync(() => CapacityMetrics.orders.add({ outcome }))

const storageFailed = (error: StoreError) => new StorageFailed({ message: `The database failed: ${error.message}` })

const readJson = (text: string) =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (error) => new InvalidRequest({ message: `The body is not valid JSON: ${error instanceof Error ? error.message : String(error)}` })
  })

const resourceText = (resource: { readonly _tag: string }) => JSON.stringify(resource)

export const CapacityAdminHttp = HttpApiBuilder.group(Api, "capacityAdmin", (handlers) =>
  Effect.gen(function*() {
    const network = yield* CapacityNetwork
    return handlers
      .handle("getNetwork", () => Effect.map(network.current, (state) => state.document))
      .handleRaw("putNetwork", ({ request }) =>
        Effect.gen(function*() {
          const text = yield* request.text.pipe(
            Effect.mapError((error) =>
              isBodyTooLarge(error)
                ? new PayloadTooLarge({ message: "The network document is larger than REQUEST_MAX_BYTES allows" })
                : new InvalidRequest({ message: `The request body could not be read: ${bodyReadFailure(error)}` })
            )
          )
          const input = yield* readJson(text)
          const version = yield* network.replace(input).pipe(
            Effect.catchTags({
              NetworkInvalid: (error) => Effect.fail(new InvalidRequest({ message: formatIssues(error.issues) })),
              StoreError: (error) => Effect.fail(storageFailed(error))
            })
          )
          return { version }
        }))
      .handle("consume", ({ payload }) =>
        network.consume(payload).pipe(
          Effect.tap((outcome) => countOrder(outcome._tag === "Applied" ? "taken" : "already_taken")),
          Effect.tapErrorTag("CapacityExhausted", () => countOrder("refused_capacity")),
          Effect.tapErrorTag("OrderConflict", () => countOrder("refused_conflict")),
          Effect.map((outcome) => ({
            orderId: payload.orderId,
            status: outcome._tag === "Applied" ? "APPLIED" as const : "ALREADY_APPLIED" as const
          })),
          Effect.catchTags({
            OrderInvalid: (error) => Effect.fail(new InvalidRequest({ message: formatIssues(error.issues) })),
            UnknownResource: (error) =>
              Effect.fail(new InvalidRequest({ message: `unknown resource ${resourceText(error.resource)} in the current network` })),
            CapacityExhausted: (error) =>
              Effect.fail(
                new CapacityConflict({
                  message: `capacity ran out: ${error.kind} ${error.code}${error.slot === "" ? "" : ` ${error.slot}`} on ${error.date} ` +
                    `cannot take ${error.requested} more (total ${error.total}); nothing was taken`
                })
              ),
            OrderConflict: (error) => Effect.fail(orderConflict(error)),
            StoreError: (error) => Effect.fail(storageFailed(error))
          })
        ))
      .handle("release", ({ params }) =>
        network.release(params.orderId).pipe(
          Effect.mapError(storageFailed),
          Effect.flatMap(Option.match({
            onNone: () => Effect.fail(new OrderNotFound({ message: `no capacity is held for order ${params.orderId}` })),
            onSome: () => Effect.succeed({ orderId: params.orderId, status: "RELEASED" as const })
          }))
        ))
      .handle("nodeLedger", ({ params, query }) =>
        Effect.gen(function*() {
          const state = yield* network.current
          const node = state.document.nodes.find((candidate) => candidate.code === params.code)
          if (node === undefined) return yield* new NodeNotFound({ message: `no node ${params.code} in the current network` })
          const ledger = yield* Effect.mapError(network.nodeLedger(node.code, query.from, query.to), storageFailed)
          return {
            node: node.code,
            from: query.from,
            to: query.to,
            pickingCapacity: node.pickingCapacity,
            dispatchCapacity: node.dispatchCapacity,
            usage: ledger.usage.map((row) => ({ kind: row.kind, pool: row.slot, date: row.day, used: row.used })),
            orders: ledger.orders.map((row) => ({ orderId: row.orderId, kind: row.kind, pool: row.slot, date: row.day, units: row.units }))
          }
        }))
  })).pipe(Layer.provide(NetworkReplica))
