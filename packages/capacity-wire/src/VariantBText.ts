import { JsonBytes } from "./JsonBytes.ts"
import { type JsonWrite, sharedJsonParts, writeLasting } from "./JsonTextReuse.ts"
import type { DeliveryResponseB, DeliveryTraceB, EntityDetails, LogisticsCapacity } from "./VariantB.ts"

/**
 * `JSON.stringify(response)` of variant B's answer as UTF-8 bytes, byte for byte, with each shared
 * part written once. Every delivery option of a dispatch's trace refers to the same leg details
 * (traceOf builds them once per dispatch, about 40% of the text at 5 items) and options with alike
 * windows to one windows list; entries from or to the same node share its entity details
 * (entityDetailsOf keeps one per node). Those are written once (by identity) and their bytes
 * repeated; the parts an entry keeps with its dispatch's plan (trace, dates, route lists:
 * planPartsOf) keep their bytes across answers while the plan is reused. The rest goes through
 * `out.json` (JSON.stringify's text), keys in the order `entryOfDispatch`, `unservedEntry` and `traceOf` build them in,
 * which is the order JSON.stringify would write.
 */
export const encodeDeliveryResponseB = (response: DeliveryResponseB): Buffer =>
  JsonBytes.written((out) => {
    const shared = sharedJsonParts(out)
    const value = (v: unknown) => out.json(v)
    const lasting = <A extends object>(v: A, write?: JsonWrite<A>) => writeLasting(out, v, write)
    const trace: JsonWrite<ReadonlyArray<DeliveryTraceB>> = (traces) => {
      out.text("[")
      for (let i = 0; i < traces.length; i++) {
        const t = traces[i]
        if (i > 0) out.text(",")
        if (t === undefined) {
          out.text("null")
          continue
        }
        out.text(`{"deliveryDate":`)
        value(t.deliveryDate)
        out.text(`,"shippingEstimate":`)
        value(t.shippingEstimate)
        out.text(`,"details":`)
        shared(t.details)
        out.text(`,"deliveryWindows":`)
        shared(t.deliveryWindows)
        out.text("}")
      }
      out.text("]")
    }
    const entity = (details: EntityDetails | null) => (details === null ? out.text("null") : shared(details))
    const entry = (e: LogisticsCapacity) => {
      out.text(`{"origin":`)
      value(e.origin)
      out.text(`,"destination":`)
      value(e.destination)
      out.text(`,"zone":`)
      value(e.zone)
      out.text(`,"route":`)
      value(e.route)
      out.text(`,"pickingDate":`)
      value(e.pickingDate)
      out.text(`,"message":`)
      value(e.message)
      out.text(`,"dispatchType":`)
      value(e.dispatchType)
      out.text(`,"dispatchMode":`)
      value(e.dispatchMode)
      out.text(`,"deliveryCost":`)
      value(e.deliveryCost)
      out.text(`,"pickingDays":`)
      lasting(e.pickingDays)
      out.text(`,"processingDays":`)
      value(e.processingDays)
      out.text(`,"leadTimes":`)
      lasting(e.leadTimes)
      out.text(`,"routeDaysOfWeek":`)
      lasting(e.routeDaysOfWeek)
      out.text(`,"deliveryDates":`)
      lasting(e.deliveryDates)
      out.text(`,"originEntityDetails":`)
      entity(e.originEntityDetails)
      out.text(`,"pickupEntityDetails":`)
      entity(e.pickupEntityDetails)
      out.text(`,"deliveryTrace":`)
      lasting(e.deliveryTrace, trace)
      out.text(`,"arriveDates":`)
      lasting(e.arriveDates)
      out.text(`,"detailedCapacityError":`)
      value(e.detailedCapacityError)
      out.text(`,"dispatchItems":`)
      value(e.dispatchItems)
      out.text("}")
    }
    out.text(`{"request":`)
    value(response.request)
    out.text(`,"logisticsCapacity":[`)
    const entries = response.logisticsCapacity
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]
      if (i > 0) out.text(",")
      if (e === undefined) out.text("null")
      else entry(e)
    }
    out.text(`],"prioritizationCriteria":`)
    value(response.prioritizationCriteria)
    out.text("}")
  })
