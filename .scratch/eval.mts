import { Either } from "effect"
const root = process.argv[2]!
const cap = await import(`${root}/packages/capacity/src/index.ts`)
const doc = Either.getOrThrow(cap.decodeNetwork(cap.demoNetwork))
const snapshot = cap.buildSnapshot(doc, cap.emptyLedger)
const item = (o: Record<string, unknown>) => ({ origin: "CD-LURIN", entityType: "CD", skuCode: "SKU-TV-55-4K", zone: "", dispatchType: "NORMAL", quantity: 1, destination: "150122", latitude: -12.12, longitude: -77.03, deliveryMode: "HOME_DELIVERY", weight: 2, ...o })
const request = Either.getOrThrow(cap.decodeDeliveryRequestA({ purchaseDate: "2027-03-01", items: [item({}), item({ destination: "150103" }), item({ origin: "CD-CALLAO", destination: "070101" }), item({ skuCode: "SKU-MOUSE-GAMER", origin: "SELLER-TECNO-LINCE", entityType: "SELLER" }), item({ destination: "150140" })] }))
const now = Date.parse("2027-02-26T15:00:00Z")
const opts = { horizonDays: 30, deliveryDatesCount: 5 }
for (let i = 0; i < 20000; i++) cap.evaluateVariantA(snapshot, request, now, opts)
const runs = 5
for (let r = 0; r < runs; r++) {
  const n = 50000
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < n; i++) cap.evaluateVariantA(snapshot, request, now, opts)
  const t1 = process.hrtime.bigint()
  console.log(`evaluateVariantA 5 items: ${(Number(t1 - t0) / n / 1000).toFixed(2)} us`)
}
const t0 = process.hrtime.bigint()
for (let i = 0; i < 50; i++) cap.buildSnapshot(doc, cap.emptyLedger)
console.log(`buildSnapshot: ${(Number(process.hrtime.bigint() - t0) / 50 / 1e6).toFixed(3)} ms`)
const r = cap.evaluateVariantA(snapshot, request, now, opts)
console.log(JSON.stringify(r).length, JSON.stringify(r.right?.map((x: {message: string}) => x.message)))
