import { type FieldIssue, formatIssues, issuesOfRejected } from "@retail/capacity"
import { makeFastDecoder } from "@retail/domain"
import { Data, Result, Schema } from "effect"
import { type DeliveryRequestB, DeliveryRequestB as DeliveryRequestBSchema, type ItemB } from "./VariantB.ts"

/** 400 of variant B: the structure (INVALID_REQUEST) or a rule across fields (BUSINESS_RULE_VIOLATION). */
export class InvalidRequestB extends Data.TaggedError("InvalidRequestB")<{
  readonly code: "INVALID_REQUEST" | "BUSINESS_RULE_VIOLATION"
  readonly message: string
  readonly issues: ReadonlyArray<FieldIssue>
}> {}

const decodeSchema = Schema.decodeUnknownResult(DeliveryRequestBSchema)
/** Same accept decisions and output as `decodeSchema`, compiled from the schema; `undefined` means "ask Schema" (for the messages). */
const decodeValidSchema = makeFastDecoder(DeliveryRequestBSchema)

/** An origin of "" counts as no origin. */
export const originOfItem = (item: ItemB): string | undefined =>
  item.origin === undefined || item.origin === "" ? undefined : item.origin

const businessIssues = (request: DeliveryRequestB): ReadonlyArray<FieldIssue> => {
  const options = request.calculationOptions
  if (options?.rangeStart !== undefined && options.rangeEnd !== undefined && options.rangeEnd < options.rangeStart) {
    return [{ path: "calculationOptions.rangeEnd", message: `must not be before rangeStart (${options.rangeStart})` }]
  }
  return []
}

/** Structure first (every bad field), then the rules across fields. */
export const decodeDeliveryRequestB = (input: unknown): Result.Result<DeliveryRequestB, InvalidRequestB> => {
  const valid = decodeValidSchema(input)
  const decoded = valid === undefined ? decodeSchema(input) : Result.succeed(valid)
  if (Result.isFailure(decoded)) {
    const issues = issuesOfRejected(DeliveryRequestBSchema, input, decoded.failure)
    return Result.fail(new InvalidRequestB({ code: "INVALID_REQUEST", message: formatIssues(issues), issues }))
  }
  const issues = businessIssues(decoded.success)
  return issues.length === 0
    ? Result.succeed(decoded.success)
    : Result.fail(new InvalidRequestB({ code: "BUSINESS_RULE_VIOLATION", message: formatIssues(issues), issues }))
}

