import { PgClient } from "@effect/sql-pg"
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { variantAItem } from "./support/CapacityBodies.ts"
import { on, restartedMidFeed, sequencedFeed } from "./support/Feeds.ts"
import { eventually, postJson, request } from "./support/Http.ts"
import { TestServer } from "./support/TestServer.ts"

const KEY = "network-changes-test-key"
// Runs against a real database keep their rows, and a change stands over every later network:
// each run changes dates of its own, far from the other tests' (a Monday from 2028 on).
const run = crypto.randomUUID().slice(0, 8)
const DAY_MS = 86_400_000
const runMonday = new Date(Date.UTC(2030, 0, 7) + 7 * DAY_MS * Math.floor(Math.random() * 2000)).toISOString().slice(0, 10)
const plusDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)
/** Sequences above any an earlier run used on these dates. */
const base = Date.now() * 100

const shared = Boolean(process.env["REDIS_URL"]) && Boolean(process.env["DATABASE_URL"])
const sharedDatabase = Boolean(process.env["DATABASE_URL"])

// The rows a run leaves would stand over a later run that picks nearby dates (it did: a holiday of
// one run moved another's first quote by a day), so each run removes its own: its dates, its sequences.
afterAll(async () => {
  const url = process.env["DATABASE_URL"]
  if (url === undefined || url === "") return
  await Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`DELETE FROM capacity_network_changes
        WHERE day BETWEEN ${runMonday}::date AND ${plusDays(runMonday, 100)}::date
          AND sequence >= ${base} AND sequence < ${base + 10_000_000}`).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
  ))
})

interface Applied {
  readonly sequence: number
  readonly received: number
  readonly rows: number
  readonly applied: number
  readonly stale: number
}

const { post, applied: changed } = sequencedFeed<Applied>("/v1/network/changes", KEY)

interface Quoted {
  readonly pickingDate: string | null
  readonly deliveryDates: ReadonlyArray<string>
  readonly deliveryTrace: ReadonlyArray<{ readonly deliveryWindows: ReadonlyArray<{ readonly deliveryWindow: string; readonly blocked: boolean }> }>
}

/** One TV from CD Lurín to Miraflores (zone LIMA-MODERNA), bought on `date`. */
const quoteOn = (date: string) =>
  Effect.map(postJson("/v1/delivery/capacity", { purchaseDate: date, items: [variantAItem()] }, KEY), (response) => {
    expect(response.status, response.text).toBe(200)
    return (response.json() as ReadonlyArray<Quoted>)[0]!
  })

interface HeldRow {
  readonly kind: string
  readonly target: string
  readonly part: string
  readonly date: string
  readonly value: number | null
  readonly sequence: number
}

/** The changes of this run's dates as one server holds them. */
const heldOn = (dates: ReadonlyArray<string>) =>
  Effect.map(request("/v1/network/changes", { token: KEY }), (response) => {
    expect(response.status, response.text).toBe(200)
    return (response.json() as { changes: ReadonlyArray<HeldRow> }).changes.filter((row) => dates.includes(row.date))
  })

/** What capacity_network_changes holds for these dates, in the order GET /v1/network/changes gives. */
const storedOn = (dates: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ kind: string; target: string; part: string; date: string; value: number | null; sequence: string }>`
      SELECT kind, target, part, day::text AS date, value, sequence::text AS sequence
      FROM capacity_network_changes WHERE day::text IN ${sql.in(dates)}`).pipe(
      Effect.orDie,
      Effect.map((rows) =>
        rows.map((row): HeldRow => ({ ...row, sequence: Number(row.sequence) })).sort((a, b) =>
          a.kind.localeCompare(b.kind) || a.target.localeCompare(b.target) || a.part.localeCompare(b.part) || a.date.localeCompare(b.date)
        )
      )
    )

describe("network changes fed as batches", () => {
  layer(TestServer({ CAPACITY_API_KEYS: KEY }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("400 names every bad field (unknown node, route, zone or window, bad date, pool); the key and media type are checked first", () =>
      Effect.gen(function*() {
        const date = plusDays(runMonday, 100)
        const bad = yield* post(base, [
          { kind: "HOLIDAY", node: "CD-NOWHERE", date, holiday: true },
          { kind: "ROUTE_CAPACITY", route: "R-NOWHERE", date, units: 0 },
          { kind: "BLOCKED", zone: "LIMA-MODERNA", window: "07:00-08:00", date, blocked: true },
          { kind: "PICKING_CAPACITY", node: "CD-LURIN", date, units: 3 },
          { kind: "NODE_DISPATCH_CAPACITY", node: "HUB-SANTA-ANITA", dispatchType: "NORMAL", date, units: 3 },
          { kind: "ZONE_WINDOW_CAPACITY", zone: "ZONA-X", window: "09:00-13:00", date, units: 1 }
        ])
        expect(bad.status).toBe(400)
        expect((bad.json() as { message: string }).message).toBe(
          "changes[0].node: unknown node \"CD-NOWHERE\" (not in the current network); " +
            "changes[1].route: unknown route \"R-NOWHERE\" (not in the current network); " +
            "changes[2].window: zone LIMA-MODERNA has no window \"07:00-08:00\"; " +
            "changes[3].dispatchType: the node has a capacity per dispatch type: dispatchType (NORMAL or EXPRESS) is required; " +
            "changes[4].dispatchType: the node has one capacity for both dispatch types: leave dispatchType out; " +
            "changes[5].zone: unknown zone \"ZONA-X\" (not in the current network)"
        )
        const badDate = yield* post(base, [{ kind: "HOLIDAY", node: "CD-LURIN", date: "2030-02-30", holiday: true }])
        expect(badDate.status).toBe(400)
        expect(badDate.text).toContain("changes[0].date")
        expect(badDate.text).toContain("expected a real date YYYY-MM-DD")
        const negative = yield* post(base, [{ kind: "ROUTE_CAPACITY", route: "R-LURIN-SUR-N", date, units: -1 }])
        expect(negative.status).toBe(400)
        expect(negative.text).toContain("changes[0].units")
        // Past a PostgreSQL integer (the table's value, the usage an order is checked against): a 400, not a 500.
        const huge = yield* post(base, [{ kind: "ZONE_WINDOW_CAPACITY", zone: "LIMA-MODERNA", window: "09:00-13:00", date, units: 2_147_483_648 }])
        expect([huge.status, huge.text]).toEqual([400, expect.stringContaining("changes[0].units: expected at most 2147483647 (a PostgreSQL integer), got 2147483648")])
        const noSequence = yield* postJson("/v1/network/changes", { changes: [{ kind: "HOLIDAY", node: "CD-LURIN", date, holiday: true }] }, KEY)
        expect(noSequence.status).toBe(400)
        expect(noSequence.text).toContain("sequence")
        expect((yield* post(base, [])).text).toContain("changes: must not be empty")
        expect((yield* postJson("/v1/network/changes", { sequence: base, changes: [] }, "wrong")).status).toBe(401)
        expect((yield* request("/v1/network/changes", { token: KEY, body: "{}", headers: { "content-type": "text/plain" } })).status).toBe(415)
        expect((yield* request("/v1/network/changes")).status).toBe(401)
        // Nothing of a refused batch is stored.
        expect(yield* storedOn([date])).toEqual([])
      }))

    it.effect("idempotent per sequence number: a replay changes nothing, and an older batch never wins over a newer one", () =>
      Effect.gen(function*() {
        const monday = plusDays(runMonday, 7)
        const tuesday = plusDays(monday, 1)
        const holiday = { kind: "HOLIDAY", node: "CD-LURIN", date: monday, holiday: true }
        expect(yield* changed(base + 10, [holiday])).toEqual({ sequence: base + 10, received: 1, rows: 1, applied: 1, stale: 0 })
        expect(yield* changed(base + 10, [holiday])).toEqual({ sequence: base + 10, received: 1, rows: 1, applied: 0, stale: 1 })
        // Late: Monday's row is at base + 10 already; Tuesday has none, so the late batch is its newest.
        expect(yield* changed(base + 9, [{ ...holiday, holiday: false }, { ...holiday, date: tuesday }]))
          .toMatchObject({ applied: 1, stale: 1 })
        // Of two changes of one target and date in a batch, the later stands.
        expect(yield* changed(base + 11, [
          { kind: "ROUTE_CAPACITY", route: "R-LURIN-SUR-N", date: monday, units: 5 },
          { kind: "ROUTE_CAPACITY", route: "R-LURIN-SUR-N", date: monday, units: 7 }
        ])).toEqual({ sequence: base + 11, received: 2, rows: 1, applied: 1, stale: 0 })
        const expected: ReadonlyArray<HeldRow> = [
          { kind: "HOLIDAY", target: "CD-LURIN", part: "", date: monday, value: 1, sequence: base + 10 },
          { kind: "HOLIDAY", target: "CD-LURIN", part: "", date: tuesday, value: 1, sequence: base + 9 },
          { kind: "ROUTE_CAPACITY", target: "R-LURIN-SUR-N", part: "", date: monday, value: 7, sequence: base + 11 }
        ]
        expect(yield* storedOn([monday, tuesday])).toEqual(expected)
        expect(yield* heldOn([monday, tuesday])).toEqual(expected)
        // Both days are holidays at CD Lurín: picking moves to Wednesday.
        expect((yield* quoteOn(monday)).pickingDate).toBe(plusDays(monday, 2))
      }))

    it.effect("answers change accordingly: a holiday moves the picking date, an override to 0 capacity takes a delivery date out, and both are taken back", () =>
      Effect.gen(function*() {
        const monday = plusDays(runMonday, 14)
        const before = yield* quoteOn(monday)
        expect(before.pickingDate).toBe(monday)
        const first = before.deliveryDates[0]!
        expect(first).toBeDefined()

        yield* changed(base + 20, [{ kind: "HOLIDAY", node: "CD-LURIN", date: monday, holiday: true }])
        expect((yield* quoteOn(monday)).pickingDate).toBe(plusDays(monday, 1))
        yield* changed(base + 21, [{ kind: "HOLIDAY", node: "CD-LURIN", date: monday, holiday: false }])
        expect(yield* quoteOn(monday)).toEqual(before)

        // Both windows of the first delivery date to 0: the date is gone from the answer.
        yield* changed(base + 22, [
          { kind: "ZONE_WINDOW_CAPACITY", zone: "LIMA-MODERNA", window: "09:00-13:00", date: first, units: 0 },
          { kind: "ZONE_WINDOW_CAPACITY", zone: "LIMA-MODERNA", window: "14:00-18:00", date: first, units: 0 }
        ])
        const closed = yield* quoteOn(monday)
        expect(closed.deliveryDates).not.toContain(first)
        expect(closed.deliveryDates.length).toBeGreaterThan(0)
        // One window blocked instead: the date is offered, that window shown blocked.
        yield* changed(base + 23, [
          { kind: "ZONE_WINDOW_CAPACITY", zone: "LIMA-MODERNA", window: "09:00-13:00", date: first, units: null },
          { kind: "ZONE_WINDOW_CAPACITY", zone: "LIMA-MODERNA", window: "14:00-18:00", date: first, units: null },
          { kind: "BLOCKED", zone: "LIMA-MODERNA", window: "09:00-13:00", date: first, blocked: true }
        ])
        const oneWindow = yield* quoteOn(monday)
        expect(oneWindow.deliveryDates[0]).toBe(first)
        expect(oneWindow.deliveryTrace[0]?.deliveryWindows).toEqual([
          expect.objectContaining({ deliveryWindow: "09:00-13:00", blocked: true }),
          expect.objectContaining({ deliveryWindow: "14:00-18:00", blocked: false })
        ])
        // The whole zone blocked that date, then lifted.
        yield* changed(base + 24, [{ kind: "BLOCKED", zone: "LIMA-MODERNA", date: first, blocked: true }])
        expect((yield* quoteOn(monday)).deliveryDates).not.toContain(first)
        yield* changed(base + 25, [
          { kind: "BLOCKED", zone: "LIMA-MODERNA", date: first, blocked: false },
          { kind: "BLOCKED", zone: "LIMA-MODERNA", window: "09:00-13:00", date: first, blocked: false }
        ])
        expect(yield* quoteOn(monday)).toEqual(before)

        // Picking capacity of CD Lurín's NORMAL pool to 0 on Monday: picked on Tuesday.
        yield* changed(base + 26, [{ kind: "PICKING_CAPACITY", node: "CD-LURIN", dispatchType: "NORMAL", date: monday, units: 0 }])
        expect((yield* quoteOn(monday)).pickingDate).toBe(plusDays(monday, 1))
      }))
  })

  it.live.skipIf(!shared)("a batch through one server changes the other's answers (the capacity events stream)", () =>
    Effect.scoped(Effect.gen(function*() {
      const settings = { CAPACITY_API_KEYS: KEY, CAPACITY_EVENTS_STREAM: `test:${run}:capacity:events`, RUN_WORKERS: "false" }
      const firstStack = yield* Layer.build(TestServer(settings))
      const first = on(firstStack)
      const second = on(yield* Layer.build(TestServer(settings)))
      const monday = plusDays(runMonday, 21)
      expect((yield* second(quoteOn(monday))).pickingDate).toBe(monday)
      yield* first(changed(base + 30, [{ kind: "HOLIDAY", node: "CD-LURIN", date: monday, holiday: true }]))
      expect(yield* second(eventually(Effect.map(quoteOn(monday), (quote) => quote.pickingDate), (date) => date === plusDays(monday, 1), 10_000)))
        .toBe(plusDays(monday, 1))
      expect(yield* second(heldOn([monday]))).toEqual(yield* Effect.provide(storedOn([monday]), firstStack))
    })), 120_000)

  it.live.skipIf(!shared)("a server restarted mid-feed converges to the database", () =>
    Effect.scoped(Effect.gen(function*() {
      const settings = { CAPACITY_API_KEYS: KEY, CAPACITY_EVENTS_STREAM: `test:${run}:capacity:events:restart`, RUN_WORKERS: "false" }
      const dates = Array.from({ length: 6 }, (_, i) => plusDays(runMonday, 28 + i))
      const batch = (i: number) => [
        { kind: "HOLIDAY", node: "TD-SURCO", date: dates[i % dates.length]!, holiday: i % 2 === 0 },
        { kind: "ROUTE_CAPACITY", route: "R-HUB-ESTE", date: dates[(i + 1) % dates.length]!, units: i },
        { kind: "BLOCKED", zone: "LIMA-SUR", window: "14:00-18:00", date: dates[(i + 2) % dates.length]!, blocked: i % 3 === 0 },
        { kind: "PICKING_CAPACITY", node: "CD-CALLAO", dispatchType: "EXPRESS", date: dates[(i + 3) % dates.length]!, units: i % 4 === 0 ? null : i }
      ]
      // Batch after batch, each target and date set again and again; now and then a late batch, older
      // than the rows it names, which must change nothing.
      const { restarted, writer, writerStack } = yield* restartedMidFeed(
        settings,
        (i) => Effect.andThen(changed(base + 40 + i, batch(i)), i % 5 === 0 ? changed(base + 40, batch(i + 1)) : Effect.void),
        heldOn(dates)
      )

      const truth = yield* Effect.provide(storedOn(dates), writerStack)
      expect(truth.length).toBeGreaterThan(0)
      const same = (rows: ReadonlyArray<HeldRow>) => JSON.stringify(rows) === JSON.stringify(truth)
      expect(yield* restarted(eventually(heldOn(dates), same, 10_000))).toEqual(truth)
      expect(yield* writer(heldOn(dates))).toEqual(truth)
    })), 180_000)

  it.live.skipIf(!sharedDatabase)("a change whose event was lost reaches the other server at its next reconciliation", () =>
    Effect.scoped(Effect.gen(function*() {
      // Separate streams: nothing the first publishes reaches the second.
      const firstStack = yield* Layer.build(TestServer({
        CAPACITY_API_KEYS: KEY,
        CAPACITY_EVENTS_STREAM: `test:${run}:capacity:events:first`,
        RUN_WORKERS: "false"
      }))
      const first = on(firstStack)
      const second = on(yield* Layer.build(TestServer({
        CAPACITY_API_KEYS: KEY,
        CAPACITY_EVENTS_STREAM: `test:${run}:capacity:events:second`,
        CAPACITY_RECONCILE_INTERVAL_MS: "300",
        RUN_WORKERS: "false"
      })))
      const monday = plusDays(runMonday, 42)
      expect((yield* second(quoteOn(monday))).pickingDate).toBe(monday)
      yield* first(changed(base + 70, [{ kind: "HOLIDAY", node: "CD-LURIN", date: monday, holiday: true }]))
      expect(yield* second(eventually(Effect.map(quoteOn(monday), (quote) => quote.pickingDate), (date) => date === plusDays(monday, 1), 10_000)))
        .toBe(plusDays(monday, 1))
      expect(yield* second(heldOn([monday]))).toEqual(yield* Effect.provide(storedOn([monday]), firstStack))
    })), 120_000)
})
