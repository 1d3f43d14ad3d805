import { StockBatch, StockSku } from "@retail/capacity"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { InvalidRequest, PayloadTooLarge, RequestTimeout, StorageFailed } from "./Errors.ts"
import { JsonContentType } from "./JsonContentType.ts"
import { JsonValueLimit } from "./JsonValueLimit.ts"
import { CapacityApiKey } from "./Security.ts"

export const StockChangesRequest = StockBatch.annotate({
  identifier: "StockChanges",
  description: "Absolute units per node and SKU under one sequence number (1 to 50,000 changes). A row keeps the units of the " +
    "highest sequence that set it: a batch again, or a batch older than a row's last, leaves the row alone. Of two changes " +
    "of one node and SKU in a batch, the later stands"
})

export const StockChangesResult = Schema.Struct({
  sequence: Schema.Int,
  received: Schema.Int.annotate({ description: "Changes in the body, duplicates included" }),
  rows: Schema.Int.annotate({ description: "Distinct node and SKU pairs" }),
  applied: Schema.Int.annotate({ description: "Rows set (new, or holding an older sequence)" }),
  stale: Schema.Int.annotate({ description: "Rows left alone: their sequence was this batch's or newer" })
}).annotate({ identifier: "StockChangesResult" })

export const StockHolding = Schema.Struct({ node: Schema.String, units: Schema.Int })

export const SkuStock = Schema.Struct({
  sku: Schema.String,
  holders: Schema.Array(StockHolding).annotate({ description: "Nodes holding a row for the SKU (units 0 included); [] when none" })
}).annotate({ identifier: "SkuStock" })

export class CapacityStockApi extends HttpApiGroup.make("capacityStock")
  .add(
    HttpApiEndpoint.post("applyStockChanges", "/stock/changes", {
      payload: StockChangesRequest,
      success: StockChangesResult,
      error: [InvalidRequest, PayloadTooLarge, RequestTimeout, StorageFailed]
    })
      .middleware(JsonValueLimit).middleware(JsonContentType)
      .annotate(OpenApi.Summary, "Set stock per node and SKU, in one batch under a sequence number (400 names every bad field)")
  )
  .add(
    HttpApiEndpoint.get("skuStock", "/stock/:sku", {
      // What a batch takes as a SKU: anything else is a 400 naming the parameter, not a SKU without stock.
      params: { sku: StockSku },
      success: SkuStock,
      error: InvalidRequest
    }).annotate(OpenApi.Summary, "A SKU's stock per node, as this process answers with it")
  )
  .middleware(CapacityApiKey)
  .prefix("/v1")
  .annotate(OpenApi.Description, "Stock fed as batches of changes, applied to PostgreSQL and to every server process")
{}
