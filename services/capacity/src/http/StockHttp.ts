import { Api, bodyReadFailure, InvalidRequest, isBodyTooLarge, PayloadTooLarge, StorageFailed } from "@retail/api"
import { decodeStockBatch, formatIssues, type StockBatchColumns } from "@retail/capacity"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CapacityNetwork } from "../CapacityNetwork.ts"
import { NetworkReplica } from "../NetworkReplica.ts"
import { StockReplica } from "../stock/StockReplica.ts"

/**
 * The body as a decoded batch, in one synchronous step: the text and the parsed values are
 * garbage before the batch goes to PostgreSQL (held across that wait, a 3 MB body and its 50,000
 * objects would be copied by every young-generation GC meanwhile, then promoted).
 */
const batchOf = (text: string, isNode: (code: string) => boolean): Effect.Effect<StockBatchColumns, InvalidRequest> => {
  let input: unknown
  try {
    input = JSON.parse(text)
  } catch (error) {
    return Effect.fail(new InvalidRequest({ message: `The body is not valid JSON: ${error instanceof Error ? error.message : String(error)}` }))
  }
  return Effect.mapError(
    Effect.fromResult(decodeStockBatch(input, isNode)),
    (error) => new InvalidRequest({ message: formatIssues(error.issues) })
  )
}

/** POST /v1/stock/changes and GET /v1/stock/{sku} (docs/capacity.md, "Stock fed as deltas"). */
export const StockHttp = HttpApiBuilder.group(Api, "capacityStock", (handlers) =>
  Effect.gen(function*() {
    const network = yield* CapacityNetwork
    const stock = yield* StockReplica
    return handlers
      // Raw: a batch of 50,000 rows is read into columns by decodeStockBatch, without a value per field.
      .handleRaw("applyStockChanges", ({ request }) =>
        request.text.pipe(
          Effect.mapError((error) =>
            isBodyTooLarge(error)
              ? new PayloadTooLarge({ message: "The batch is larger than REQUEST_MAX_BYTES allows: send it as several batches" })
              : new InvalidRequest({ message: `The request body could not be read: ${bodyReadFailure(error)}` })
          ),
          Effect.flatMap((text) => {
            const nodes = network.peek().nodes
            return batchOf(text, (code) => nodes.has(code))
          }),
          Effect.flatMap((batch) => Effect.mapError(stock.feed(batch), (error) => new StorageFailed({ message: `The database failed: ${error.message}` })))
        ))
      .handle("skuStock", ({ params }) =>
        Effect.sync(() => ({
          sku: params.sku,
          holders: stock.holdingsOf(params.sku).map((row) => ({ node: row.node, units: row.units }))
        })))
  })).pipe(Layer.provide(NetworkReplica))
