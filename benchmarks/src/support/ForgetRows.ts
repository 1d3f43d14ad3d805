import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** The tables a load writes its products to, keyed by company. */
export const PRODUCT_TABLES = ["products", "product_barcodes", "product_hierarchies", "product_attributes"] as const

/**
 * Deletes what one measurement wrote (its companies' products), then vacuums the product tables and
 * asks for a checkpoint, so that the next measurement writes into tables as large as before, with no
 * dead rows for autovacuum to clean while it runs (or ever, where autovacuum is off) and no
 * checkpoint of this one's WAL under way. VACUUM skips, with a warning, a table the user does not
 * own; CHECKPOINT needs superuser or pg_checkpoint, and is left out without it.
 */
export const forgetCompanies = (companies: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    if (companies.length === 0) return
    const sql = yield* SqlClient.SqlClient
    for (const table of PRODUCT_TABLES) yield* sql`DELETE FROM ${sql(table)} WHERE company IN ${sql.in(companies)}`
    yield* sql.unsafe(`VACUUM (ANALYZE) ${PRODUCT_TABLES.join(", ")}`)
    yield* sql.unsafe("CHECKPOINT").pipe(Effect.ignore)
  })

export const forgetCompany = (company: string) => forgetCompanies([company])
