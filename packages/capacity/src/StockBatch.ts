import { Data, Result, Schema } from "effect"
import { between, Int, isStorableText, MAX_CODE_LENGTH, maxLength, minItems, storable, UNSTORABLE_TEXT } from "./Checks.ts"
import { type FieldIssue, formatIssues } from "./DecodeError.ts"
import { Code } from "./Network.ts"
import { MAX_STOCK_UNITS } from "./StockBoard.ts"

/** Most changes in one batch (a body of about 3 MB); a feed sends more as several batches. */
export const MAX_STOCK_BATCH_ROWS = 50_000

export const StockSequence = Int.check(between(0, Number.MAX_SAFE_INTEGER))
export const StockUnits = Int.check(between(0, MAX_STOCK_UNITS))

/** A SKU as a batch's change and GET /v1/stock/{sku} take it: what `decodeStockBatch` checks, documented. */
export const StockSku = Code.check(maxLength(MAX_CODE_LENGTH, `expected a code of at most ${MAX_CODE_LENGTH} characters`), storable)

export const StockChange = Schema.Struct({ node: Code, sku: StockSku, units: StockUnits })

/**
 * A batch of stock changes: absolute units per node and SKU, under one sequence number
 * (docs/capacity.md, "Stock fed as deltas"). The contract documents it; `decodeStockBatch` reads it.
 */
export const StockBatch = Schema.Struct({
  sequence: StockSequence,
  changes: Schema.Array(StockChange).check(minItems(1, "must not be empty"), Schema.isMaxLength(MAX_STOCK_BATCH_ROWS))
})
export type StockBatch = typeof StockBatch.Type

export class StockBatchInvalid extends Data.TaggedError("StockBatchInvalid")<{ readonly issues: ReadonlyArray<FieldIssue> }> {
  override get message(): string {
    return formatIssues(this.issues)
  }
}

/** A decoded batch as columns, one row per node and SKU (of two changes of one row, the later in the batch stands). */
export interface StockBatchColumns {
  readonly sequence: number
  /** Changes in the body, duplicates included. */
  readonly received: number
  readonly nodes: ReadonlyArray<string>
  readonly skus: ReadonlyArray<string>
  readonly units: ReadonlyArray<number>
}

const CODE = /^\S(.*\S)?$/
/** At most this many problems are listed: a batch of 50,000 bad rows gets a readable 400. */
const MAX_ISSUES = 20

/** Deeper than this, a value is not written out: JSON.stringify of a value nested 100,000 deep overflows the stack. */
const MAX_SHOWN_DEPTH = 20

/** A value written out up to MAX_SHOWN_DEPTH levels and about 60 characters. */
const show = (value: unknown): string => {
  let text = ""
  const write = (part: unknown, depth: number): void => {
    if (text.length > 60) return
    if (typeof part === "number") text += String(part)
    else if (typeof part !== "object" || part === null) text += JSON.stringify(part) ?? String(part)
    else if (depth >= MAX_SHOWN_DEPTH) text += Array.isArray(part) ? "[...]" : "{...}"
    else if (Array.isArray(part)) {
      text += "["
      for (let i = 0; i < part.length && text.length <= 60; i++) {
        if (i > 0) text += ","
        write(part[i], depth + 1)
      }
      text += "]"
    } else {
      text += "{"
      let first = true
      for (const [key, item] of Object.entries(part)) {
        if (text.length > 60) break
        text += `${first ? "" : ","}${JSON.stringify(key)}:`
        first = false
        write(item, depth + 1)
      }
      text += "}"
    }
  }
  write(value, 0)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

/** Why a node or SKU is not a code, or undefined when it is one. */
const codeProblem = (value: unknown): string | undefined => {
  if (value === undefined) return "is required"
  if (typeof value !== "string" || !CODE.test(value)) return `expected a non-empty code, got ${show(value)}`
  if (value.length > MAX_CODE_LENGTH) return `expected a code of at most ${MAX_CODE_LENGTH} characters, got ${value.length}`
  if (!isStorableText(value)) return `${UNSTORABLE_TEXT}, got ${show(value)}`
  return undefined
}

const isUnits = (value: unknown): value is number =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_STOCK_UNITS

/**
 * Reads a batch without building a value per field (a batch holds up to 50,000 rows): the
 * shape of `StockBatch`, then every node against the current network. Each problem names its
 * field (`changes[3].units`, `changes[7].node`), at most 20 of them. Unknown fields are ignored.
 */
export const decodeStockBatch = (
  input: unknown,
  isNode: (code: string) => boolean
): Result.Result<StockBatchColumns, StockBatchInvalid> => {
  const issues: Array<FieldIssue> = []
  const problem = (path: string, message: string) => {
    if (issues.length < MAX_ISSUES) issues.push({ path, message })
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return Result.fail(new StockBatchInvalid({ issues: [{ path: "(root)", message: `expected an object {sequence, changes}, got ${show(input)}` }] }))
  }
  const body = input as { readonly sequence?: unknown; readonly changes?: unknown }
  const sequence = body.sequence
  if (sequence === undefined) problem("sequence", "is required")
  else if (typeof sequence !== "number" || !Number.isSafeInteger(sequence) || sequence < 0) {
    problem("sequence", `expected an integer between 0 and ${Number.MAX_SAFE_INTEGER}, got ${show(sequence)}`)
  }
  const changes = body.changes
  // Per node, then SKU (a batch's nodes are few): no key string built per change.
  const byNode = new Map<string, Map<string, number>>()
  const nodes: Array<string> = []
  const skus: Array<string> = []
  const units: Array<number> = []
  if (changes === undefined) problem("changes", "is required")
  else if (!Array.isArray(changes)) problem("changes", `expected an array of {node, sku, units}, got ${show(changes)}`)
  else if (changes.length === 0) problem("changes", "must not be empty")
  else if (changes.length > MAX_STOCK_BATCH_ROWS) {
    problem("changes", `at most ${MAX_STOCK_BATCH_ROWS} changes in one batch, got ${changes.length}: send them as several batches`)
  } else {
    for (let i = 0; i < changes.length; i++) {
      const change: unknown = changes[i]
      if (typeof change !== "object" || change === null || Array.isArray(change)) {
        problem(`changes[${i}]`, `expected an object {node, sku, units}, got ${show(change)}`)
        continue
      }
      const { node, sku, units: unitsOf } = change as { readonly node?: unknown; readonly sku?: unknown; readonly units?: unknown }
      let valid = true
      const nodeProblem = codeProblem(node)
      if (nodeProblem !== undefined) {
        problem(`changes[${i}].node`, nodeProblem)
        valid = false
      } else if (!isNode(node as string)) {
        problem(`changes[${i}].node`, `unknown node ${show(node)} (not in the current network)`)
        valid = false
      }
      const skuProblem = codeProblem(sku)
      if (skuProblem !== undefined) {
        problem(`changes[${i}].sku`, skuProblem)
        valid = false
      }
      if (!isUnits(unitsOf)) {
        problem(
          `changes[${i}].units`,
          unitsOf === undefined ? "is required" : `expected an integer between 0 and ${MAX_STOCK_UNITS}, got ${show(unitsOf)}`
        )
        valid = false
      }
      if (!valid || issues.length > 0) continue
      let ofNode = byNode.get(node as string)
      if (ofNode === undefined) {
        ofNode = new Map()
        byNode.set(node as string, ofNode)
      }
      const at = ofNode.get(sku as string)
      if (at !== undefined) units[at] = unitsOf as number
      else {
        ofNode.set(sku as string, nodes.length)
        nodes.push(node as string)
        skus.push(sku as string)
        units.push(unitsOf as number)
      }
    }
  }
  if (issues.length > 0) return Result.fail(new StockBatchInvalid({ issues }))
  return Result.succeed({ sequence: sequence as number, received: (changes as ReadonlyArray<unknown>).length, nodes, skus, units })
}
