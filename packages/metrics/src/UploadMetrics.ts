import { counter, gauge, histogram, LOAD_SECONDS } from "./Families.ts"

const bySource = ["source"] as const

export const productsReceived = counter("upload_products_received_total", "Products received in loads, by source (LOAD_PRODUCTS, HANDLE_JSON, HANDLE_JSON_INT, HANDLE_CSV)", bySource)
export const productsAccepted = counter("upload_products_accepted_total", "Products that passed validation and were published, by source", bySource)
export const productsFailed = counter("upload_products_failed_total", "Products failed (validation, or their batch dead-lettered), by source", bySource)
export const productsPersisted = counter("upload_products_persisted_total", "Products persisted to PostgreSQL by the batch workers, by source", bySource)

export const persistPacedBatches = counter(
  "upload_persist_paced_batches_total",
  "Batches the batch workers' thread waited before persisting because the event loop answered its ping late (PERSIST_YIELD_LAG_MS)"
)
export const persistPacedSeconds = counter(
  "upload_persist_paced_seconds_total",
  "Time the batch workers' thread waited before batches for the event loop (PERSIST_YIELD_LAG_MS, at most PERSIST_YIELD_MAX_MS a batch)"
)

export const loadsByState = counter("upload_loads_total", "Loads entering each status (RECEIVED, PROCESSING, COMPLETED, COMPLETED_WITH_ERRORS, FAILED)", ["state"])

export const loadSeconds = histogram(
  "upload_load_duration_seconds",
  "Time from a load's creation (its request's first byte, within milliseconds) to its final status, by source and final status",
  LOAD_SECONDS,
  ["source", "state"]
)

export const loadsUnfinished = gauge(
  "upload_loads_unfinished",
  "Loads not final yet (RECEIVED, PROCESSING) on this server's queue, as the reconciler last counted them (every LOAD_RECONCILE_INTERVAL_MS)",
  ["state"]
)

/** Sets upload_loads_unfinished from the reconciler's list of loads not final. */
export const countUnfinished = (loads: ReadonlyArray<{ readonly status: string }>): void => {
  let received = 0
  let processing = 0
  for (const load of loads) {
    if (load.status === "RECEIVED") received++
    else if (load.status === "PROCESSING") processing++
  }
  loadsUnfinished.set({ state: "RECEIVED" }, received)
  loadsUnfinished.set({ state: "PROCESSING" }, processing)
}

export const loadsForgotten = counter(
  "upload_loads_forgotten_total",
  "Finished loads whose record (row, errors, batch ledger, events) was deleted after LOAD_RETENTION_DAYS, by this server's sweeps"
)
