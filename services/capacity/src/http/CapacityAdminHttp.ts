import {
  Api,
  bodyReadFailure,
  InvalidRequest,
  isBodyTooLarge,
  NodeNotFound,
  OrderNotFound,
  PayloadTooLarge
} from "@retail/api"
import { formatIssues, rowsOfBatch } from "@retail/capacity"
import { Effect, Layer, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { storageFailed, takeOrder } from "../answer/TakeOrder.ts"
import { CapacityNetwork } from "../CapacityNetwork.ts"
import { NetworkReplica } from "../NetworkReplica.ts"

const readJson = (text: string) =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (error) => new InvalidRequest({ message: `The body is not valid JSON: ${error instanceof Error ? error.message : String(error)}` })
  })


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
      .handle("applyNetworkChanges", ({ payload }) =>
        Effect.gen(function*() {
          const state = yield* network.current
          const batch = yield* Effect.mapError(
            Effect.fromResult(rowsOfBatch(payload, state.document)),
            (error) => new InvalidRequest({ message: formatIssues(error.issues) })
          )
          return yield* Effect.mapError(network.applyChanges(batch), storageFailed)
        }))
      .handle("networkChanges", () =>
        Effect.map(network.changes, (rows) => ({
          changes: [...rows].sort((a, b) =>
            a.kind.localeCompare(b.kind) || a.target.localeCompare(b.target) || a.part.localeCompare(b.part) || a.date.localeCompare(b.date)
          )
        })))
      .handle("consume", ({ payload }) => takeOrder(network, payload))
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
