import { lastingJsonText as lasting, sharedJsonText } from "./JsonTextReuse.ts"
import type { DeliveryResponseB, DeliveryTraceB, EntityDetails, LogisticsCapacity } from "./VariantB.ts"

/**
 * `JSON.stringify(response)` of variant B's answer, byte for byte, with each shared part written once.
 * Every delivery option of a dispatch's trace refers to the same leg details (traceOf builds them
 * once per dispatch, about 40% of the text at 5 items) and options with alike windows to one
 * windows list; entries from or to the same node share its entity details (entityDetailsOf keeps
 * one per node). Those are serialised once (by identity) and spliced in; the parts an entry keeps
 * with its dispatch's plan (trace, dates, route lists: planPartsOf) keep their text across answers
 * while the plan is reused. The rest goes through JSON.stringify, keys in the order `entryOfDispatch`,
 * `unservedEntry` and `traceOf` build them in, which is the order JSON.stringify would write.
 */
export const encodeDeliveryResponseB = (response: DeliveryResponseB): string => {
  const shared = sharedJsonText()
  const text = JSON.stringify
  const trace = (traces: ReadonlyArray<DeliveryTraceB>): string => {
    let out = "["
    for (let i = 0; i < traces.length; i++) {
      const t = traces[i]
      if (i > 0) out += ","
      out += t === undefined
        ? "null"
        : `{"deliveryDate":${text(t.deliveryDate)},"shippingEstimate":${text(t.shippingEstimate)}` +
          `,"details":${shared(t.details)},"deliveryWindows":${shared(t.deliveryWindows)}}`
    }
    return `${out}]`
  }
  const entity = (details: EntityDetails | null): string => (details === null ? "null" : shared(details))
  const entry = (e: LogisticsCapacity): string =>
    `{"origin":${text(e.origin)},"destination":${text(e.destination)},"zone":${text(e.zone)},"route":${text(e.route)}` +
    `,"pickingDate":${text(e.pickingDate)},"message":${text(e.message)},"dispatchType":${text(e.dispatchType)}` +
    `,"dispatchMode":${text(e.dispatchMode)},"deliveryCost":${text(e.deliveryCost)},"pickingDays":${lasting(e.pickingDays)}` +
    `,"processingDays":${text(e.processingDays)},"leadTimes":${lasting(e.leadTimes)},"routeDaysOfWeek":${lasting(e.routeDaysOfWeek)}` +
    `,"deliveryDates":${lasting(e.deliveryDates)},"originEntityDetails":${entity(e.originEntityDetails)}` +
    `,"pickupEntityDetails":${entity(e.pickupEntityDetails)},"deliveryTrace":${lasting(e.deliveryTrace, trace)}` +
    `,"arriveDates":${lasting(e.arriveDates)},"detailedCapacityError":${text(e.detailedCapacityError)}` +
    `,"dispatchItems":${text(e.dispatchItems)}}`
  let out = `{"request":${text(response.request)},"logisticsCapacity":[`
  const entries = response.logisticsCapacity
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]
    if (i > 0) out += ","
    out += e === undefined ? "null" : entry(e)
  }
  return `${out}],"prioritizationCriteria":${text(response.prioritizationCriteria)}}`
}
