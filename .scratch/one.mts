import { Either } from "effect"
import * as cap from "../packages/capacity/src/index.ts"
const snapshot = cap.buildSnapshot(Either.getOrThrow(cap.decodeNetwork(cap.demoNetwork)), cap.emptyLedger)
const req = Either.getOrThrow(cap.decodeDeliveryRequestA({ purchaseDate: "2027-03-01", items: [{ origin: "CD-LURIN", entityType: "CD", skuCode: "SKU-TV-55-4K", zone: "", dispatchType: "NORMAL", quantity: 1, destination: "150122", latitude: -12.12, longitude: -77.03, deliveryMode: "HOME_DELIVERY", weight: 2 }] }))
const r = Either.getOrThrow(cap.evaluateVariantA(snapshot, req, Date.parse("2027-02-20T12:00:00Z"), { horizonDays: 30, deliveryDatesCount: 5 }))
console.log(JSON.stringify({ d: r[0].dispatchCode, route: r[0].route, p: r[0].pickingDate, t: r[0].deliveryTrace[0] }))
