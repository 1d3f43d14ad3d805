import { Schema } from "effect"

export const MAX_PRODUCTS_PER_LOAD = 3000

const UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"

/** Effect 3's Schema.UUID accepted any 8-4-4-4-12 hex text, as isGUID does (isUUID would also check the version bits). */
export const ProcessCode = Schema.String.check(
  Schema.isGUID({ message: "must be a UUID", toJsonSchema: () => ({ format: "uuid", pattern: UUID_PATTERN }) })
).annotate({
  identifier: "ProcessCode",
  description: "UUID v4 that identifies one load"
})

export const LoadStatus = Schema.Literals(["RECEIVED", "PROCESSING", "COMPLETED", "COMPLETED_WITH_ERRORS", "FAILED"])
export type LoadStatus = typeof LoadStatus.Type

export const isFinalStatus = (status: LoadStatus): boolean =>
  status === "COMPLETED" || status === "COMPLETED_WITH_ERRORS" || status === "FAILED"

export const LoadSource = Schema.Literals(["LOAD_PRODUCTS", "HANDLE_JSON", "HANDLE_JSON_INT", "HANDLE_CSV"])
export type LoadSource = typeof LoadSource.Type

export class ErrorMessage extends Schema.Class<ErrorMessage>("ErrorMessage")({
  message: Schema.String
}) {}

export class LoadError extends Schema.Class<LoadError>("LoadError")({
  sku: Schema.String,
  error: Schema.String
}) {}

/** 200 body when no product failed. `processCode` is our addition to the spec's shape. */
export class LoadAccepted extends Schema.Class<LoadAccepted>("LoadAccepted")({
  message: Schema.String,
  processCode: ProcessCode
}) {}

/** 200 body when some products failed. `processCode` is our addition to the spec's shape. */
export class LoadSummary extends Schema.Class<LoadSummary>("LoadSummary")({
  total: Schema.Int,
  processing: Schema.Int,
  failed: Schema.Int,
  errors: Schema.Array(LoadError),
  processCode: ProcessCode
}) {}

export const acceptedMessage = (processing: number, processCode: string): string =>
  `${processing} product${processing === 1 ? " is" : "s are"} being processed; process code ${processCode}`

export class LoadTotals extends Schema.Class<LoadTotals>("LoadTotals")({
  received: Schema.Int.annotate({ description: "products read from the request" }),
  accepted: Schema.Int.annotate({ description: "products that passed validation and were sent to processing" }),
  persisted: Schema.Int.annotate({ description: "accepted products written to the database" }),
  failed: Schema.Int.annotate({ description: "products that failed validation or persistence" })
}) {}

export class LoadView extends Schema.Class<LoadView>("LoadView")({
  processCode: ProcessCode,
  company: Schema.String,
  source: LoadSource,
  status: LoadStatus,
  totals: LoadTotals,
  failureReason: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  completedAt: Schema.NullOr(Schema.String)
}) {}

export class LoadErrorsPage extends Schema.Class<LoadErrorsPage>("LoadErrorsPage")({
  processCode: ProcessCode,
  errors: Schema.Array(LoadError),
  nextCursor: Schema.NullOr(Schema.String).annotate({
    description: "pass as `cursor` to read the next page; null on the last page"
  })
}) {}

/** Published on the load events stream at every change of a load's status. */
export class LoadStatusChanged extends Schema.Class<LoadStatusChanged>("LoadStatusChanged")({
  type: Schema.Literal("LoadStatusChanged"),
  processCode: ProcessCode,
  company: Schema.String,
  source: LoadSource,
  status: LoadStatus,
  previousStatus: Schema.NullOr(LoadStatus),
  totals: LoadTotals,
  failureReason: Schema.NullOr(Schema.String),
  at: Schema.String
}) {}
