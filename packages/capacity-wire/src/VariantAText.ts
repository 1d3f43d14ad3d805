import { JsonBytes } from "./JsonBytes.ts"
import { sharedJsonParts } from "./JsonTextReuse.ts"
import type { DeliveryResult } from "./VariantA.ts"

/**
 * `JSON.stringify(results)` of variant A's answer as UTF-8 bytes, byte for byte, with each shared
 * part written once. Every item of a dispatch refers to the same route, dates and delivery trace
 * (evaluateVariantA builds them once per dispatch), and the trace is most of the text: 20 items in
 * 3 dispatches are ~70 KB of which ~60 KB repeat. Arrays are written once per distinct array (by
 * identity) and their bytes repeated; scalar fields go through `out.json` (JSON.stringify's text), keys in
 * DeliveryResult's field order (the order `deliveryResult` builds them in, which is the order
 * JSON.stringify would write).
 */
export const encodeDeliveryResults = (results: ReadonlyArray<DeliveryResult>): Buffer =>
  JsonBytes.written((out) => {
    const array = sharedJsonParts(out)
    const value = (v: unknown) => out.json(v)
    out.text("[")
    for (let i = 0; i < results.length; i++) {
      if (i > 0) out.text(",")
      const r = results[i]
      if (r === undefined) {
        out.text("null")
        continue
      }
      out.text(`{"skuCode":`)
      value(r.skuCode)
      out.text(`,"line":`)
      value(r.line)
      out.text(`,"dispatchCode":`)
      value(r.dispatchCode)
      out.text(`,"deliveryCost":`)
      value(r.deliveryCost)
      out.text(`,"measurable":`)
      value(r.measurable)
      out.text(`,"origin":`)
      value(r.origin)
      out.text(`,"zone":`)
      value(r.zone)
      out.text(`,"pickingDays":`)
      array(r.pickingDays)
      out.text(`,"processingDays":`)
      value(r.processingDays)
      out.text(`,"leadTimes":`)
      array(r.leadTimes)
      out.text(`,"routeDaysOfWeek":`)
      array(r.routeDaysOfWeek)
      out.text(`,"route":`)
      value(r.route)
      out.text(`,"pickingDate":`)
      value(r.pickingDate)
      out.text(`,"deliveryDates":`)
      array(r.deliveryDates)
      out.text(`,"deliveryTrace":`)
      array(r.deliveryTrace)
      out.text(`,"message":`)
      value(r.message)
      out.text(`,"division":`)
      value(r.division)
      out.text(`,"arriveDates":`)
      array(r.arriveDates)
      out.text(`,"detailedCapacityError":`)
      array(r.detailedCapacityError)
      out.text("}")
    }
    out.text("]")
  })
