import { Option, Result } from "effect"
import {
  buildSnapshot,
  type CapacityUse,
  type Day,
  decodeNetwork,
  type EngineItem,
  type EngineRequest,
  type Ledger,
  ledgerFromUses,
  emptyLedger,
  type NetworkDocument,
  type NetworkDocumentInput,
  parseDay,
  type Snapshot
} from "../src/index.ts"

/**
 * A small network whose every date can be checked by hand:
 *   CD1 (Lima, MON-FRI, cut-off 14:00, picking 10 units/day, holidays 2025-07-28/29 and 2026-01-01)
 *     --R1 (MON-FRI, 1 business day, 50/departure, 10 + 0.5/kg)--> zone Z1 (ubigeo 150122)
 *     --R2 (MON,WED,FRI, 1 calendar day, 50/departure, 2 + 0.1/kg)--> HUB1 (MON-SAT)
 *   HUB1 --R3 (MON-SAT, 0 days, 20/departure, 5 + 0.2/kg)--> zone Z2 (ubigeo 150103)
 *   Z1 and Z2 deliver MON-SAT in two windows of 2 deliveries each.
 */
export const smallNetwork: NetworkDocumentInput = {
  nodes: [
    {
      code: "CD1",
      type: "CD",
      name: "CD Uno",
      shortName: "CD1",
      address: { address: "Av. Uno 1", district: "Lurín", province: "Lima", ubigeoCode: "150119", country: "PE", latitude: -12.27, longitude: -76.87 },
      contact: { phone: "+51 1 000 0001" },
      timeZone: "America/Lima",
      pickingDays: ["MON", "TUE", "WED", "THU", "FRI"],
      pickingCutoff: "14:00",
      processingDays: 0,
      holidays: ["2025-07-28", "2025-07-29", "2026-01-01"],
      pickingCapacity: 10,
      dispatchCapacity: 100
    },
    {
      code: "HUB1",
      type: "HUB",
      name: "Hub Uno",
      shortName: "HUB1",
      address: { address: "Carretera Central 1", district: "Santa Anita", province: "Lima", ubigeoCode: "150137", country: "PE", latitude: -12.04, longitude: -76.97 },
      contact: { phone: "+51 1 000 0002" },
      pickingDays: ["MON", "TUE", "WED", "THU", "FRI", "SAT"],
      pickingCutoff: "22:00",
      processingDays: 0,
      pickingCapacity: 0,
      dispatchCapacity: 100
    }
  ],
  routes: [
    {
      id: "R1", source: "CD1", target: { kind: "ZONES", zones: ["Z1"] },
      dispatchTypes: ["NORMAL", "EXPRESS"], deliveryModes: ["HOME_DELIVERY"],
      departureDays: ["MON", "TUE", "WED", "THU", "FRI"], departureCutoff: "18:00",
      leadTime: { days: 1, unit: "BUSINESS_DAYS" }, capacityPerDeparture: 50, cost: { base: 10, perKg: 0.5 }
    },
    {
      id: "R2", source: "CD1", target: { kind: "NODE", node: "HUB1" },
      dispatchTypes: ["NORMAL"], deliveryModes: ["HOME_DELIVERY"],
      departureDays: ["MON", "WED", "FRI"], departureCutoff: "18:00",
      leadTime: { days: 1, unit: "CALENDAR_DAYS" }, capacityPerDeparture: 50, cost: { base: 2, perKg: 0.1 }
    },
    {
      id: "R3", source: "HUB1", target: { kind: "ZONES", zones: ["Z2"] },
      dispatchTypes: ["NORMAL"], deliveryModes: ["HOME_DELIVERY"],
      departureDays: ["MON", "TUE", "WED", "THU", "FRI", "SAT"], departureCutoff: "10:00",
      leadTime: { days: 0, unit: "CALENDAR_DAYS" }, capacityPerDeparture: 20, cost: { base: 5, perKg: 0.2 }
    }
  ],
  zones: [
    {
      code: "Z1", name: "Zona Uno", ubigeos: ["150122"], deliveryDays: ["MON", "TUE", "WED", "THU", "FRI", "SAT"],
      windows: [
        { code: "AM", start: "09:00", end: "13:00", capacity: 2 },
        { code: "PM", start: "14:00", end: "18:00", capacity: 2 }
      ]
    },
    {
      code: "Z2", name: "Zona Dos", ubigeos: ["150103"], deliveryDays: ["MON", "TUE", "WED", "THU", "FRI", "SAT"],
      windows: [
        { code: "AM", start: "09:00", end: "13:00", capacity: 2 },
        { code: "PM", start: "14:00", end: "18:00", capacity: 2 }
      ]
    }
  ],
  stock: [
    { node: "CD1", sku: "SKU-A", units: 100 },
    { node: "CD1", sku: "SKU-B", units: 3 }
  ]
}

export const decoded = (input: unknown): NetworkDocument => {
  const result = decodeNetwork(input)
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  return result.success
}

export const snapshotOf = (input: unknown = smallNetwork, ledger: Ledger = emptyLedger): Snapshot =>
  buildSnapshot(decoded(input), ledger)

export const day = (text: string): Day => Option.getOrThrow(parseDay(text))

/** An instant given as Lima wall-clock time (UTC-5, no daylight saving). */
export const limaTime = (date: string, time: string): number => Date.parse(`${date}T${time}:00-05:00`)

export const item = (overrides: Partial<EngineItem> = {}): EngineItem => ({
  sku: "SKU-A",
  origin: "CD1",
  units: 1,
  weightKg: 2,
  dispatchType: "NORMAL",
  deliveryMode: "HOME_DELIVERY",
  zone: "Z1",
  ...overrides
})

export const request = (purchaseDate: string, items: ReadonlyArray<EngineItem>, validateStock = true): EngineRequest => ({
  purchaseDate: day(purchaseDate),
  items,
  validateStock
})

export const ledgerWith = (uses: ReadonlyArray<CapacityUse>): Ledger => ledgerFromUses(uses)
