import { CapacityConflict, InvalidRequest, StorageFailed } from "@retail/api"
import { type DispatchOrder, formatIssues } from "@retail/capacity"
import { CapacityMetrics } from "@retail/metrics"
import type { StoreError } from "@retail/store"
import { Effect } from "effect"
import type { CapacityNetwork } from "../CapacityNetwork.ts"
import { CheckoutTraffic } from "./CheckoutTraffic.ts"
import { orderConflict } from "../http/OrderConflictAnswer.ts"

/** taken, already_taken (the same order again), refused_capacity and refused_conflict (both 409). */
const countOrder = (outcome: string) => Effect.sync(() => CapacityMetrics.orders.add({ outcome }))

export const storageFailed = (error: StoreError) => new StorageFailed({ message: `The database failed: ${error.message}` })

const resourceText = (resource: { readonly _tag: string }) => JSON.stringify(resource)

/**
 * POST /v1/delivery/capacity/consumptions once its body is a decoded order, for both adapters (the
 * HttpApi handler, CapacityAdminHttp.ts, and the fast lane, http/OrdersLane.ts, over AnswerOrder.ts): the order taken
 * all or nothing, and every outcome as the contract answers it (ConsumptionResult, or the
 * contract's error: 400 InvalidRequest, 409 OrderConflict or CapacityConflict, 500 StorageFailed).
 */
export const takeOrder = (network: typeof CapacityNetwork.Service, order: DispatchOrder) =>
  Effect.andThen(Effect.sync(CheckoutTraffic.taken), network.consume(order)).pipe(
    Effect.tap((outcome) => countOrder(outcome._tag === "Applied" ? "taken" : "already_taken")),
    Effect.tapErrorTag("CapacityExhausted", () => countOrder("refused_capacity")),
    Effect.tapErrorTag("OrderConflict", () => countOrder("refused_conflict")),
    Effect.map((outcome) => ({
      orderId: order.orderId,
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
  )
