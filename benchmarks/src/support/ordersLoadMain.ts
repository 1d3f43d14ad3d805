// autocannon in its own process placing capacity orders: every request a new order (its own orderId)
// on one of the offers, in turn. argv: the options file ({url, connections, seconds, amount?,
// headers, offers: string[] (orders without their orderId, as JSON objects), prefix, out}).
// Writes {result (autocannon's), applied (order ids answered 200 APPLIED), statuses} to `out`.
import { Schema } from "effect"
import { writeFileSync } from "node:fs"
import { LoadFields, optionsText, postLoad } from "./LoadProcess.ts"

const Placed = Schema.Struct({ orderId: Schema.String, status: Schema.String })
const decodePlaced = Schema.decodeUnknownResult(Schema.fromJsonString(Placed))

const Options = Schema.Struct({ ...LoadFields, offers: Schema.NonEmptyArray(Schema.String), prefix: Schema.String, out: Schema.String })
const options = Schema.decodeUnknownSync(Schema.fromJsonString(Options))(optionsText())
// `{"orderId":"…",` + the offer's fields: the order as a client sends it, orderId first.
const tails = options.offers.map((offer) => offer.slice(1))
const applied: Array<string> = []
const alreadyApplied: Array<string> = []
let next = 0

const result = await postLoad(options, 60, {
  setupRequest: (request) => {
    const n = next++
    request.body = `{"orderId":"${options.prefix}${n}",${tails[n % tails.length] ?? tails[0]}`
    return request
  },
  onResponse: (status, body) => {
    if (status !== 200) return
    const placed = decodePlaced(body)
    if (placed._tag === "Failure") return
    if (placed.success.status === "APPLIED") applied.push(placed.success.orderId)
    else alreadyApplied.push(placed.success.orderId)
  }
})
writeFileSync(options.out, JSON.stringify({ result, applied, alreadyApplied }))
