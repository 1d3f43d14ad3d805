import { inject } from "vitest"
import { Effect } from "effect"
import { chmodSync, mkdtempSync } from "node:fs"
import { join } from "node:path"
import { startPostgres } from "./Postgres.ts"
import { type RedisOptions, startRedis } from "./Redis.ts"

/** A folder of this test's own under the suite's root (logs of its servers end up there). */
export const testDir = (name: string) => {
  const dir = mkdtempSync(join(inject("faultsRoot"), `${name}-`))
  // An embedded PostgreSQL under it runs as the postgres user when the suite runs as root.
  chmodSync(dir, 0o755)
  return dir
}

/** A private PostgreSQL and Redis (with `redis` options: AOF) for one test, stopped when its scope closes. */
export const lab = (name: string, options: { readonly redis?: RedisOptions } = {}) =>
  Effect.gen(function*() {
    const dir = testDir(name)
    const [postgres, redis] = yield* Effect.all([startPostgres(inject("pgTemplate"), inject("faultsRoot")), startRedis(dir, options.redis)], {
      concurrency: 2
    })
    const names = streams()
    /** The environment that points a server at this lab: its database, its Redis and its streams. */
    const connection = { DATABASE_URL: postgres.url, REDIS_URL: redis.url, ...names } as const
    return { dir, postgres, redis, names, connection } as const
  })

/** Stream names of one test, so nothing is shared even by accident. */
export const streams = () => {
  const run = crypto.randomUUID().slice(0, 8)
  return {
    PRODUCT_BATCHES_STREAM: `faults:${run}:products:batches`,
    LOAD_EVENTS_STREAM: `faults:${run}:product-loads:events`,
    PRODUCT_CONSUMER_GROUP: "product-writers"
  } as const
}
