import { Effect } from "effect"
import type { ChangedLoadRow } from "./LoadRow.ts"

/** Milliseconds from the load's creation to this change (0 for its creation). */
const durationMs = (row: ChangedLoadRow): number => Math.max(0, Date.parse(row.updatedAt) - Date.parse(row.createdAt)) || 0

/**
 * One log line per status change of a load, with what an operator looks for: whose load, how far
 * it got, how long it has taken. Written in the transaction that makes the change, beside its
 * outbox event (docs/observability.md, "Logs").
 */
export const logStatusChange = (row: ChangedLoadRow): Effect.Effect<void> =>
  Effect.logInfo(
    `load ${row.processCode} of ${row.company} ${row.previousStatus ?? "created"} -> ${row.status} after ${durationMs(row)} ms: ` +
      `received ${row.received}, accepted ${row.accepted}, persisted ${row.persisted}, failed ${row.failed}` +
      (row.failureReason === null ? "" : ` (${row.failureReason})`)
  ).pipe(
    Effect.annotateLogs({
      event: "load.status",
      processCode: row.processCode,
      company: row.company,
      source: row.source,
      status: row.status,
      previousStatus: row.previousStatus ?? "",
      received: row.received,
      accepted: row.accepted,
      persisted: row.persisted,
      failed: row.failed,
      deadLettered: row.deadLettered,
      durationMs: durationMs(row),
      ...(row.failureReason === null ? {} : { failureReason: row.failureReason })
    })
  )
