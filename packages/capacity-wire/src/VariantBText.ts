import { JsonBytes } from "./JsonBytes.ts"
import { type JsonWrite, KeptRuns, sharedJsonParts, writeLasting, writeList } from "./JsonTextReuse.ts"
import type { DeliveryRequestB, DeliveryResponseB, DeliveryTraceB, EntityDetails, ItemB, LogisticsCapacity } from "./VariantB.ts"

/** `out.text(key)` then the value's text, when the value is not undefined (JSON.stringify leaves such members out). */
const member = (out: JsonBytes, key: string, value: unknown): void => {
  if (value === undefined) return
  out.text(key)
  out.json(value)
}

/**
 * An echoed item's text, fields in the order `echoItem` (VariantBEcho.ts) builds them in: the
 * request's items and every dispatch's are written in each answer (none is kept across answers),
 * and the general object writer costs more per field.
 */
const writeItem: JsonWrite<ItemB> = (item, out) => {
  out.text(`{"skuCode":`)
  out.json(item.skuCode)
  out.text(`,"quantity":`)
  out.json(item.quantity)
  member(out, `,"origin":`, item.origin)
  member(out, `,"companyCode":`, item.companyCode)
  member(out, `,"line":`, item.line)
  member(out, `,"presentationCode":`, item.presentationCode)
  member(out, `,"division":`, item.division)
  member(out, `,"measurable":`, item.measurable)
  member(out, `,"routePriority":`, item.routePriority)
  member(out, `,"units":`, item.units)
  member(out, `,"weight":`, item.weight)
  member(out, `,"height":`, item.height)
  member(out, `,"width":`, item.width)
  member(out, `,"length":`, item.length)
  member(out, `,"volume":`, item.volume)
  member(out, `,"attributes":`, item.attributes)
  out.text("}")
}

/** What a run's text is written from: an entry's fields from `pickingDays` to `arriveDates`. */
const RUN_FIELDS = [
  "pickingDays",
  "processingDays",
  "leadTimes",
  "routeDaysOfWeek",
  "deliveryDates",
  "originEntityDetails",
  "pickupEntityDetails",
  "deliveryTrace",
  "arriveDates"
] as const satisfies ReadonlyArray<keyof LogisticsCapacity>
type Run = Pick<LogisticsCapacity, typeof RUN_FIELDS[number]>

/**
 * Runs kept across answers (JsonTextReuse.ts `KeptRuns`): a dispatch's parts kept with its reused
 * plan (VariantBEntries.ts `planPartsOf`) and the entity details of its origin and pickup store,
 * the same for the dispatch in every answer that reuses the plan. Keyed by the trace, one list per parts.
 */
const keptRuns = new KeptRuns<Run>(RUN_FIELDS)

/**
 * `JSON.stringify(response)` of variant B's answer as UTF-8 bytes, byte for byte, with each shared
 * part written once. Every delivery option of a dispatch's trace refers to the same leg details
 * (traceOf builds them once per dispatch, about 40% of the text at 5 items) and options with alike
 * windows to one windows list; entries from or to the same node share its entity details
 * (entityDetailsOf keeps one per node). Those are written once (by identity) and their bytes
 * repeated; the parts an entry keeps with its dispatch's plan (trace, dates, route lists:
 * planPartsOf) keep their bytes across answers while the plan is reused, and so does an entry's
 * whole run of them from `pickingDays` to `arriveDates` (`keptRuns`). Echoed items are written
 * once per answer by identity: a dispatch shipping a line from the origin the request gave it echoes
 * the request's own item, and alternatives shipping a line from the same origin share one echo
 * (VariantBEntries.ts `shippedEcho`). The rest goes through
 * `out.json` (JSON.stringify's text), keys in the order `entryOfDispatch`, `unservedEntry` and `traceOf` build them in,
 * which is the order JSON.stringify would write.
 */
export const encodeDeliveryResponseB = (response: DeliveryResponseB): Buffer =>
  JsonBytes.written((out) => {
    const shared = sharedJsonParts(out)
    const value = (v: unknown) => out.json(v)
    const lasting = <A extends object>(v: A, write?: JsonWrite<A>) => writeLasting(out, v, write)
    const trace: JsonWrite<ReadonlyArray<DeliveryTraceB>> = (traces) =>
      writeList(out, traces, (t) => {
        out.text(`{"deliveryDate":`)
        value(t.deliveryDate)
        out.text(`,"shippingEstimate":`)
        value(t.shippingEstimate)
        out.text(`,"details":`)
        shared(t.details)
        out.text(`,"deliveryWindows":`)
        shared(t.deliveryWindows)
        out.text("}")
      })
    const entity = (details: EntityDetails | null) => (details === null ? out.text("null") : shared(details))
    /** Items by identity: a dispatch's item echoed as the request echoes it, or as another dispatch from its origin does, is repeated bytes. */
    const items = (list: ReadonlyArray<ItemB>) => writeList(out, list, (item) => shared(item, writeItem))
    /** The request echo, fields in the order `requestWithDefaults` (VariantBEcho.ts) builds them in. */
    const request = (r: DeliveryRequestB) => {
      out.text(`{"purchaseDate":`)
      value(r.purchaseDate)
      out.text(`,"saleChannel":`)
      value(r.saleChannel)
      out.text(`,"deliveryData":`)
      value(r.deliveryData)
      out.text(`,"items":`)
      items(r.items)
      member(out, `,"isLastRoute":`, r.isLastRoute)
      member(out, `,"dispatchType":`, r.dispatchType)
      member(out, `,"dispatchMode":`, r.dispatchMode)
      member(out, `,"entitySale":`, r.entitySale)
      member(out, `,"hasFreightAttributeConfiguration":`, r.hasFreightAttributeConfiguration)
      member(out, `,"calculationOptions":`, r.calculationOptions)
      out.text("}")
    }
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
      keptRuns.write(out, e.deliveryTrace, e, () => {
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
      })
      out.text(`,"detailedCapacityError":`)
      value(e.detailedCapacityError)
      out.text(`,"dispatchItems":`)
      items(e.dispatchItems)
      out.text("}")
    }
    out.text(`{"request":`)
    request(response.request)
    out.text(`,"logisticsCapacity":`)
    writeList(out, response.logisticsCapacity, entry)
    out.text(`,"prioritizationCriteria":`)
    value(response.prioritizationCriteria)
    out.text("}")
  })
