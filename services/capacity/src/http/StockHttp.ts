import { Api, bodyReadFailure, InvalidRequest, isBodyTooLarge, PayloadTooLarge, StorageFailed } from "@retail/api"
import { decodeStockBatch, formatIssues } from "@retail/capacity"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CapacityNetwork } from "../CapacityNetwork.ts"
import { NetworkReplica } from "../NetworkReplica.ts"
import { StockReplica } from "../stock/StockReplica.ts"

const readJson = (text: string) =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (error) => new InvalidRequest({ message: `The body is not valid JSON: ${error instanceof Error ? error.message : String(error)}` })
  })

/** POST /v1/stock/changes and GET /v1/stock/{sku} (docs/capacity.md, "Stock fed as deltas"). */
export const StockHttp = HttpApiBuilder.group(Api, "capacityStock", (handlers) =>
  Effect.gen(function*() {
    const network = yield* CapacityNetwork
    const stock = yield* StockReplica
    return handlers
      // Raw: a batch of 50,000 rows is read into columns by decodeStockBatch, without a value per field.
      .handleRaw("applyStockChanges", ({ request }) =>
        Effect.gen(function*() {
          const text = yield* request.text.pipe(
            Effect.mapError((error) =>
              isBodyTooLarge(error)
                ? new PayloadTooLarge({ message: "The batch is larger than REQUEST_MAX_BYTES allows: send it as several batches" })
                : new InvalidRequest({ message: `The request body could not be read: ${bodyReadFailure(error)}` })
            )
          )
          const input = yield* readJson(text)
          const nodes = network.peek().nodes
          const batch = yield* Effect.mapError(
            Effect.fromResult(decodeStockBatch(input, (code) => nodes.has(code))),
            (error) => new InvalidRequest({ message: formatIssues(error.issues) })
          )
          return yield* Effect.mapError(stock.feed(batch), (error) => new StorageFailed({ message: `The database failed: ${error.message}` }))
        }))
      .handle("skuStock", ({ params }) =>
        Effect.sync(() => ({
          sku: params.sku,
          holders: stock.holdingsOf(params.sku).map((row) => ({ node: row.node, units: row.units }))
        })))
  })).pipe(Layer.provide(NetworkReplica))
