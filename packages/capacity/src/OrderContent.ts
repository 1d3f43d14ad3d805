import { Data, Result, Schema, Struct } from "effect"
import { DispatchOrder } from "./OrderUses.ts"

/** What an order asks, without its id: stored with the order, so that a repeat can be compared with it. */
export const OrderContent = DispatchOrder.mapFields(Struct.omit(["orderId"]))
export type OrderContent = typeof OrderContent.Type

/**
 * The content of an order as it is stored (the decoded order, so the trace's unread fields are left out);
 * a route of null and of "" are one thing (no legs), stored as "".
 */
export const orderContentOf = ({ orderId: _, ...content }: DispatchOrder): OrderContent =>
  content.route === null ? { ...content, route: "" } : content

/** A field whose value differs between the applied order and the one sent again. */
export interface OrderDifference {
  readonly field: string
  readonly applied: string
  readonly sent: string
}

/** The order id was applied already with other content; the applied order stands (409). */
export class OrderConflict extends Data.TaggedError("OrderConflict")<{
  readonly orderId: string
  readonly differences: ReadonlyArray<OrderDifference>
}> {}

const text = (value: string | number | null | undefined) => (value === undefined || value === null ? "none" : String(value))
const legs = (count: number) => `${count} leg${count === 1 ? "" : "s"}`

/** Every field of `sent` that differs from `applied`, in the order's field order; legs by index. */
export const orderDifferences = (applied: OrderContent, sent: OrderContent): ReadonlyArray<OrderDifference> => {
  const differences: Array<OrderDifference> = []
  const compare = (field: string, before: string | number | null | undefined, after: string | number | null | undefined) => {
    if (before !== after) differences.push({ field, applied: text(before), sent: text(after) })
  }
  compare("dispatchCode", applied.dispatchCode, sent.dispatchCode)
  compare("route", applied.route ?? "", sent.route ?? "")
  compare("pickingDate", applied.pickingDate, sent.pickingDate)
  if (applied.details.length !== sent.details.length) {
    compare("details", legs(applied.details.length), legs(sent.details.length))
  } else {
    applied.details.forEach((leg, index) => {
      compare(`details[${index}].route`, leg.route, sent.details[index]?.route)
      compare(`details[${index}].departureDate`, leg.departureDate, sent.details[index]?.departureDate)
    })
  }
  compare("deliveryDate", applied.deliveryDate, sent.deliveryDate)
  compare("deliveryWindow", applied.deliveryWindow, sent.deliveryWindow)
  compare("units", applied.units, sent.units)
  return differences
}

const decodeContent = Schema.decodeUnknownResult(OrderContent)

/**
 * The differences between a stored content and the order sent again. A stored content this version
 * cannot read (written by a newer one) differs as a whole.
 */
export const differencesFromStored = (stored: unknown, sent: OrderContent): ReadonlyArray<OrderDifference> =>
  Result.match(decodeContent(stored), {
    onFailure: () => [{ field: "(order)", applied: "unreadable", sent: "this order" }],
    onSuccess: (applied) => orderDifferences(applied, sent)
  })
