import { OrderConflict } from "@retail/api"
import type { OrderConflict as Conflict } from "@retail/capacity"

/** 409: `order O-1 was already applied with other content (units: 2 applied, 3 sent); ...`. */
export const orderConflict = (conflict: Conflict): OrderConflict => {
  const listed = conflict.differences.map((d) => `${d.field}: ${d.applied} applied, ${d.sent} sent`).join("; ")
  return new OrderConflict({
    orderId: conflict.orderId,
    fields: conflict.differences.map((d) => d.field),
    message: `order ${conflict.orderId} was already applied with other content${listed === "" ? "" : ` (${listed})`}; ` +
      "the applied order stands and nothing was taken: release it first, or use another orderId"
  })
}
