import { HttpApiBuilder } from "@effect/platform"
import { Api, CapacityConflict, InvalidRequest, NodeNotFound, OrderNotFound, PayloadTooLarge, StorageFailed } from "@retail/api"
import { formatIssues } from "@retail/capacity"
import { orderConflict } from "./OrderConflictAnswer.ts"
import type { StoreError } from "@retail/store"
import { Effect, Option } from "effect"
import { CapacityNetwork } from "../CapacityNetwork.ts"

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
              String(error.cause).includes("maxBytes exceeded")
                ? new PayloadTooLarge({ message: "The network document is larger than REQUEST_MAX_BYTES allows" })
                : new InvalidRequest({ message: `The request body could not be read: ${error.message}` })
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
      .handle("release", ({ path }) =>
        network.release(path.orderId).pipe(
          Effect.mapError(storageFailed),
          Effect.flatMap(Option.match({
            onNone: () => Effect.fail(new OrderNotFound({ message: `no capacity is held for order ${path.orderId}` })),
            onSome: () => Effect.succeed({ orderId: path.orderId, status: "RELEASED" as const })
          }))
        ))
      .handle("nodeLedger", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const state = yield* network.current
          const node = state.document.nodes.find((candidate) => candidate.code === path.code)
          if (node === undefined) return yield* new NodeNotFound({ message: `no node ${path.code} in the current network` })
          const ledger = yield* Effect.mapError(network.nodeLedger(node.code, urlParams.from, urlParams.to), storageFailed)
          return {
            node: node.code,
            from: urlParams.from,
            to: urlParams.to,
            pickingCapacity: node.pickingCapacity,
            dispatchCapacity: node.dispatchCapacity,
            usage: ledger.usage.map((row) => ({ kind: row.kind, pool: row.slot, date: row.day, used: row.used })),
            orders: ledger.orders.map((row) => ({ orderId: row.orderId, kind: row.kind, pool: row.slot, date: row.day, units: row.units }))
          }
        }))
  }))
