import { counter, histogram, LATENCY_SECONDS } from "./Families.ts"

export const batchPersistSeconds = histogram(
  "store_batch_persist_duration_seconds",
  "Time to persist one batch of products (one transaction), by outcome (persisted, skipped, failed)",
  LATENCY_SECONDS,
  ["outcome"]
)
export const rowsWritten = counter("store_rows_written_total", "Rows written by batch persistence (products upserted; older versions skipped are not counted)", ["table"])
