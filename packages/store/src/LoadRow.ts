import { LoadSource, LoadStatus, LoadStatusChanged, LoadTotals, LoadView } from "@retail/domain"
import { Schema } from "effect"

const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/** The columns of a load, aliased to LoadRow's fields; `alias` qualifies them inside joins. */
export const loadColumns = (alias: string): string => {
  const c = (column: string) => `${alias}.${column}`
  return [
    `${c("process_code")}::text AS "processCode"`,
    `${c("company")} AS "company"`,
    `${c("source")} AS "source"`,
    `${c("status")} AS "status"`,
    `${c("receiving")} AS "receiving"`,
    `${c("received")} AS "received"`,
    `${c("accepted")} AS "accepted"`,
    `${c("persisted")} AS "persisted"`,
    `${c("failed")} AS "failed"`,
    `${c("dead_lettered")} AS "deadLettered"`,
    `${c("failure_reason")} AS "failureReason"`,
    `${iso(c("created_at"))} AS "createdAt"`,
    `${iso(c("updated_at"))} AS "updatedAt"`,
    `${iso(c("completed_at"))} AS "completedAt"`
  ].join(", ")
}

export const LoadRow = Schema.Struct({
  processCode: Schema.String,
  company: Schema.String,
  source: LoadSource,
  status: LoadStatus,
  receiving: Schema.Boolean,
  received: Schema.Number,
  accepted: Schema.Number,
  persisted: Schema.Number,
  failed: Schema.Number,
  deadLettered: Schema.Number,
  failureReason: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  completedAt: Schema.NullOr(Schema.String)
})
export type LoadRow = typeof LoadRow.Type

/** A load as an update left it, with the status it had before (null when the update created it). */
export const ChangedLoadRow = Schema.Struct({ ...LoadRow.fields, previousStatus: Schema.NullOr(LoadStatus) })
export type ChangedLoadRow = typeof ChangedLoadRow.Type

const totalsOf = (row: LoadRow) =>
  new LoadTotals({ received: row.received, accepted: row.accepted, persisted: row.persisted, failed: row.failed })

export const toLoadView = (row: LoadRow): LoadView =>
  new LoadView({
    processCode: row.processCode,
    company: row.company,
    source: row.source,
    status: row.status,
    totals: totalsOf(row),
    failureReason: row.failureReason,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    completedAt: row.completedAt
  })

export const toStatusChanged = (row: ChangedLoadRow): LoadStatusChanged =>
  new LoadStatusChanged({
    type: "LoadStatusChanged",
    processCode: row.processCode,
    company: row.company,
    source: row.source,
    status: row.status,
    previousStatus: row.previousStatus,
    totals: totalsOf(row),
    failureReason: row.failureReason,
    at: row.updatedAt
  })
