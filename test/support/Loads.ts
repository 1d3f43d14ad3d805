import { StreamQueue } from "@retail/queue"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { request } from "./Http.ts"
import { TestSettings } from "./TestServer.ts"

/** A 200 body of a load endpoint: LoadAccepted or LoadSummary, with our processCode. */
export interface LoadBody {
  readonly processCode: string
  readonly message?: string
  readonly total?: number
  readonly processing?: number
  readonly failed?: number
  readonly errors?: ReadonlyArray<{ readonly sku: string; readonly error: string }>
}

export interface LoadViewBody {
  readonly status: string
  readonly source: string
  readonly totals: { readonly received: number; readonly accepted: number; readonly persisted: number; readonly failed: number }
}

export const loadView = (processCode: string, token: string) =>
  Effect.map(request(`/v1/loads/${processCode}`, { token }), (r) => r.json() as LoadViewBody)

/**
 * The id of the newest product batch ever published on the test server's stream (entries are
 * deleted once persisted, so this, not a count, proves that a refused load published nothing).
 */
export const publishedEntries = Effect.gen(function*() {
  const queue = yield* StreamQueue
  const settings = yield* TestSettings
  return yield* Effect.orDie(queue.lastId(settings["PRODUCT_BATCHES_STREAM"]!))
})

/** Rows of each product table for the company's products whose code starts with `prefix`. */
export const productCounts = (prefix: string, company = "ACME") =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ products: string; barcodes: string; hierarchies: string; attributes: string }>`
      SELECT
        (SELECT count(*) FROM products WHERE company = ${company} AND product_code LIKE ${prefix + "%"})::text AS products,
        (SELECT count(*) FROM product_barcodes WHERE company = ${company} AND product_code LIKE ${prefix + "%"})::text AS barcodes,
        (SELECT count(*) FROM product_hierarchies WHERE company = ${company} AND product_code LIKE ${prefix + "%"})::text AS hierarchies,
        (SELECT count(*) FROM product_attributes WHERE company = ${company} AND product_code LIKE ${prefix + "%"})::text AS attributes`.pipe(
      Effect.map((rows) => rows[0]),
      Effect.orDie
    ))
