import pg from "pg"

/**
 * Runs `body` with DATABASE_URL pointing at a database of its own on the same PostgreSQL server,
 * created for it and dropped after (WITH FORCE: a server killed mid-run may still hold connections).
 * For the benchmarks that leave stock rows and a network behind (stock-deltas, capacity-national):
 * the database `npm test` runs on, which test files share while they run, never sees them.
 * Without DATABASE_URL the benchmark's servers run on their own in-memory databases already.
 */
export const withOwnDatabase = async <A>(name: string, body: () => Promise<A>): Promise<A> => {
  const shared = process.env["DATABASE_URL"]
  if (shared === undefined || shared === "") return body()
  const url = new URL(shared)
  const database = `${url.pathname.slice(1) || "postgres"}_${name}_${crypto.randomUUID().slice(0, 8)}`.toLowerCase().replace(/[^a-z0-9_]/g, "_").slice(0, 63)
  const admin = new pg.Client({ connectionString: shared })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE "${database}"`)
    url.pathname = `/${database}`
    process.env["DATABASE_URL"] = url.toString()
    try {
      return await body()
    } finally {
      process.env["DATABASE_URL"] = shared
      await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)
    }
  } finally {
    await admin.end()
  }
}
