import { JsonBytes } from "./JsonBytes.ts"
import { type JsonWrite, KeptRuns, sharedJsonParts, writeList } from "./JsonTextReuse.ts"
import type { DeliveryResult, DeliveryTrace } from "./VariantA.ts"

/** What a run's text is written from: a result's fields from `pickingDays` to `deliveryTrace`. */
const RUN_FIELDS = [
  "pickingDays",
  "processingDays",
  "leadTimes",
  "routeDaysOfWeek",
  "route",
  "pickingDate",
  "deliveryDates",
  "deliveryTrace"
] as const satisfies ReadonlyArray<keyof DeliveryResult>
type Run = Pick<DeliveryResult, typeof RUN_FIELDS[number]>

/**
 * Runs kept across answers (JsonTextReuse.ts `KeptRuns`). A run is a dispatch's: a reused plan's
 * parts (VariantAMapping.ts `sharedPartsOf`, marked lasting) and its picking date, the same for
 * every item the dispatch carries in every answer that reuses the plan. Keyed by the trace, which
 * is one list per parts.
 */
const keptRuns = new KeptRuns<Run>(RUN_FIELDS)

/**
 * `JSON.stringify(results)` of variant A's answer as UTF-8 bytes, byte for byte, with each shared
 * part written once. Every item of a dispatch refers to the same route, dates and delivery trace
 * (evaluateVariantA builds them once per dispatch), and the trace is most of the text: 20 items in
 * 3 dispatches are ~70 KB of which ~60 KB repeat. Arrays are written once per distinct array (by
 * identity) and their bytes repeated; a dispatch's run of fields from `pickingDays` to
 * `deliveryTrace` is copied from its text kept across answers while its plan is reused (`keptRuns`:
 * 14% fewer instructions a request for 5 items, docs/capacity.md). A trace written anew (its plan
 * made again after an order) is written field by field, its details and windows as shared parts
 * (the windows lists are shared across plans: DispatchTrace.ts). Scalar fields go through
 * `out.json` (JSON.stringify's text), keys in DeliveryResult's field order (the order
 * `deliveryResult` builds them in, which is the order JSON.stringify would write).
 */
export const encodeDeliveryResults = (results: ReadonlyArray<DeliveryResult>): Buffer =>
  JsonBytes.written((out) => {
    const array = sharedJsonParts(out)
    const value = (v: unknown) => out.json(v)
    /** A trace, fields in the order partsOf (VariantAMapping.ts) builds them in: its details and windows are shared parts. */
    const trace: JsonWrite<ReadonlyArray<DeliveryTrace>> = (traces) =>
      writeList(out, traces, (t) => {
        out.text(`{"deliveryDate":`)
        value(t.deliveryDate)
        out.text(`,"details":`)
        array(t.details)
        out.text(`,"deliveryWindows":`)
        array(t.deliveryWindows)
        out.text("}")
      })
    writeList(out, results, (r) => {
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
      keptRuns.write(out, r.deliveryTrace, r, () => {
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
        array(r.deliveryTrace, trace)
      })
      out.text(`,"message":`)
      value(r.message)
      out.text(`,"division":`)
      value(r.division)
      out.text(`,"arriveDates":`)
      array(r.arriveDates)
      out.text(`,"detailedCapacityError":`)
      array(r.detailedCapacityError)
      out.text("}")
    })
  })
