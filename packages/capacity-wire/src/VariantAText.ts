import { sharedJsonText } from "./JsonTextReuse.ts"
import type { DeliveryResult } from "./VariantA.ts"

/**
 * `JSON.stringify(results)` of variant A's answer, byte for byte, with each shared part written once.
 * Every item of a dispatch refers to the same route, dates and delivery trace (evaluateVariantA
 * builds them once per dispatch), and the trace is most of the text: 20 items in 3 dispatches
 * are ~70 KB of which ~60 KB repeat. Arrays are serialised once per distinct array (by identity) and
 * spliced in; scalar fields go through JSON.stringify, keys in DeliveryResult's field order (the
 * order `deliveryResult` builds them in, which is the order JSON.stringify would write).
 */
export const encodeDeliveryResults = (results: ReadonlyArray<DeliveryResult>): string => {
  const array = sharedJsonText()
  const text = JSON.stringify
  let out = "["
  for (let i = 0; i < results.length; i++) {
    if (i > 0) out += ","
    const r = results[i]
    if (r === undefined) {
      out += "null"
      continue
    }
    out += `{"skuCode":${text(r.skuCode)},"line":${text(r.line)},"dispatchCode":${text(r.dispatchCode)}` +
      `,"deliveryCost":${text(r.deliveryCost)},"measurable":${text(r.measurable)},"origin":${text(r.origin)}` +
      `,"zone":${text(r.zone)},"pickingDays":${array(r.pickingDays)},"processingDays":${text(r.processingDays)}` +
      `,"leadTimes":${array(r.leadTimes)},"routeDaysOfWeek":${array(r.routeDaysOfWeek)},"route":${text(r.route)}` +
      `,"pickingDate":${text(r.pickingDate)},"deliveryDates":${array(r.deliveryDates)}` +
      `,"deliveryTrace":${array(r.deliveryTrace)},"message":${text(r.message)},"division":${text(r.division)}` +
      `,"arriveDates":${array(r.arriveDates)},"detailedCapacityError":${array(r.detailedCapacityError)}}`
  }
  return `${out}]`
}
