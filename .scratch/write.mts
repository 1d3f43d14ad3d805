import { Effect, Either, Scope, Exit } from "effect"
import * as cap from "../packages/capacity/src/index.ts"
import { CapacityRepository } from "../packages/store/src/index.ts"
import { startActor } from "../services/capacity/src/actors/UsageActor.ts"

const doc = Either.getOrThrow(cap.decodeNetwork(cap.demoNetwork))
// A realistic ledger: 30 days of usage on every node pool, route and window.
const uses: Array<cap.CapacityUse> = []
for (let d = 0; d < 30; d++) {
  const date = new Date(Date.UTC(2027, 2, 1 + d)).toISOString().slice(0, 10)
  for (const n of doc.nodes) uses.push({ resource: { _tag: "Picking", node: n.code, pool: typeof n.pickingCapacity === "number" ? "ALL" : "NORMAL" }, date, amount: 3 })
  for (const r of doc.routes) uses.push({ resource: { _tag: "RouteDeparture", route: r.id }, date, amount: 3 })
  for (const z of doc.zones) for (const w of z.windows) uses.push({ resource: { _tag: "ZoneWindow", zone: z.code, window: w.code }, date, amount: 3 })
}
const ledger = cap.ledgerFromUses(uses)
for (let i = 0; i < 20; i++) cap.buildSnapshot(doc, ledger)
let t0 = performance.now()
const N1 = 100
for (let i = 0; i < N1; i++) cap.buildSnapshot(doc, cap.ledgerFromUses(uses))
console.log(`before: whole rebuild per write (ledger ${uses.length} uses): ${((performance.now() - t0) / N1).toFixed(3)} ms`)

const stub = { loadUsageOf: () => Effect.succeed([]) } as unknown as CapacityRepository
const program = Effect.gen(function*() {
  const scope = yield* Scope.make()
  const board = new cap.UsageBoard()
  const snapshot = cap.buildSnapshotOn(doc, board.cellOf)
  const ids = [{ kind: "node", code: "CD-LURIN" }, { kind: "route", code: "R-LURIN-HUB" }, { kind: "route", code: "R-HUB-ESTE" }, { kind: "node", code: "HUB-SANTA-ANITA" }, { kind: "zone", code: "LIMA-ESTE" }] as const
  const actors = []
  for (const id of ids) actors.push(yield* Effect.provideService(startActor(id, board, () => "2000-01-01", scope), CapacityRepository, stub))
  for (const a of actors) yield* Effect.promise(() => Promise.resolve()), yield* (a.ready as any).await ?? Effect.void
  // seed 30 days per resource
  let revision = 1
  const states = (d: number) => [
    { resource: { _tag: "Picking", node: "CD-LURIN", pool: "NORMAL" }, date: `2027-03-${String(1 + (d % 28)).padStart(2, "0")}`, used: d, revision },
    { resource: { _tag: "NodeDispatch", node: "CD-LURIN", pool: "NORMAL" }, date: `2027-03-${String(1 + (d % 28)).padStart(2, "0")}`, used: d, revision },
    { resource: { _tag: "RouteDeparture", route: "R-LURIN-HUB" }, date: `2027-03-${String(1 + (d % 28)).padStart(2, "0")}`, used: d, revision },
    { resource: { _tag: "RouteDeparture", route: "R-HUB-ESTE" }, date: `2027-03-${String(1 + (d % 28)).padStart(2, "0")}`, used: d, revision },
    { resource: { _tag: "NodeDispatch", node: "HUB-SANTA-ANITA", pool: "NORMAL" }, date: `2027-03-${String(1 + (d % 28)).padStart(2, "0")}`, used: d, revision },
    { resource: { _tag: "ZoneWindow", zone: "LIMA-ESTE", window: "09:00-13:00" }, date: `2027-03-${String(1 + (d % 28)).padStart(2, "0")}`, used: d, revision }
  ]
  const write = (d: number) => {
    revision++
    const s = states(d) as any[]
    return Effect.all([
      actors[0]!.ask((done) => ({ _tag: "Apply", states: [s[0], s[1]], done })),
      actors[1]!.ask((done) => ({ _tag: "Apply", states: [s[2]], done })),
      actors[2]!.ask((done) => ({ _tag: "Apply", states: [s[3]], done })),
      actors[3]!.ask((done) => ({ _tag: "Apply", states: [s[4]], done })),
      actors[4]!.ask((done) => ({ _tag: "Apply", states: [s[5]], done }))
    ], { concurrency: "unbounded", discard: true })
  }
  for (let i = 0; i < 2000; i++) yield* write(i)
  const N = 10000
  const t = performance.now()
  for (let i = 0; i < N; i++) yield* write(i)
  console.log(`after: one 2-leg home-delivery consumption through 5 actors (6 resources, mailbox + ack): ${((performance.now() - t) / N * 1000).toFixed(1)} us`)
  console.log("check", snapshot.routes.get("R-HUB-ESTE")!.used.size)
  yield* Scope.close(scope, Exit.void)
})
await Effect.runPromise(program)
