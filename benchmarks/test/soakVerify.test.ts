import { demoNetwork } from "@retail/capacity"
import { CapacityRepository, Database, migrate } from "@retail/store"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeProduct, rng } from "../parsers/generate.ts"
import { verifyInDatabase } from "../src/soak/Verify.ts"

// The soak's end check against a database that does not hold what the loads accepted: it must say so.
describe("soak end check", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "retail-soak-verify-"))
  // The demo network, and a store day used beyond its 120 units with nothing in the ledger behind it.
  const setUp = Effect.gen(function*() {
    yield* migrate
    yield* Effect.flatMap(CapacityRepository, (capacity) => capacity.initNetwork(demoNetwork))
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO capacity_usage (kind, code, slot, day, used) VALUES ('PICKING', 'TD-MIRAFLORES', 'ALL', '2028-01-03', 121)`
  }).pipe(Effect.provide(CapacityRepository.layer.pipe(Layer.provideMerge(Database.layer({ url: Option.none(), dataDir, poolSize: 1 })))))
  beforeAll(() => Effect.runPromise(setUp), 120_000)
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it("reports a load whose products are missing, an oversold resource, usage without its ledger, and an order the database does not hold", async () => {
    const random = rng(1)
    const products = [makeProduct(random, 0), makeProduct(random, 1)]
    const verified = await verifyInDatabase(undefined, dataDir, [{
      kind: "/v1/load-products",
      processCode: crypto.randomUUID(),
      company: "SOAK-VERIFY",
      token: "unused",
      products,
      invalid: new Set()
    }], { prefix: "soak-verify-", held: new Set(["soak-verify-1"]), fromDay: "2028-01-03", toDay: "2028-03-03" })
    expect(verified.productsCounted).toBe(0)
    expect(verified.problems).toEqual(expect.arrayContaining([
      expect.stringContaining("0 of 2 accepted products in PostgreSQL"),
      expect.stringContaining("product P000000000 is not in PostgreSQL")
    ]))
    expect(verified.capacityRows).toBe(1)
    expect(verified.problems).toEqual(expect.arrayContaining([
      "capacity PICKING|TD-MIRAFLORES|ALL|2028-01-03: oversold, 121 used of 120",
      "capacity PICKING|TD-MIRAFLORES|ALL|2028-01-03: 121 used but 0 in the ledger",
      "1 orders applied and not released are not in capacity_orders: soak-verify-1"
    ]))
  }, 120_000)
})
