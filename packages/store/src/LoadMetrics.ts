import type { LoadSource } from "@retail/domain"
import { UploadMetrics } from "@retail/metrics"
import { Effect } from "effect"
import type { ChangedLoadRow } from "./LoadRow.ts"

/**
 * Product and load metrics, counted where the loads' own counters and statuses are written (inside
 * the writing transaction: one that fails to commit afterwards is counted all the same), so that
 * they add up to what the loads report.
 */
export const countProducts = (
  source: LoadSource,
  delta: { readonly received?: number; readonly accepted?: number; readonly failed?: number; readonly persisted?: number }
) =>
  Effect.sync(() => {
    if (delta.received) UploadMetrics.productsReceived.add({ source }, delta.received)
    if (delta.accepted) UploadMetrics.productsAccepted.add({ source }, delta.accepted)
    if (delta.failed) UploadMetrics.productsFailed.add({ source }, delta.failed)
    if (delta.persisted) UploadMetrics.productsPersisted.add({ source }, delta.persisted)
  })

const FINAL = new Set(["COMPLETED", "COMPLETED_WITH_ERRORS", "FAILED"])

/** A load entered `row.status`; a final one also gives its time from creation. */
export const countStatusChange = (row: ChangedLoadRow) =>
  Effect.sync(() => {
    UploadMetrics.loadsByState.add({ state: row.status })
    if (FINAL.has(row.status) && row.completedAt !== null) {
      const seconds = (Date.parse(row.completedAt) - Date.parse(row.createdAt)) / 1000
      if (Number.isFinite(seconds)) UploadMetrics.loadSeconds.observe({ source: row.source, state: row.status }, Math.max(0, seconds))
    }
  })
