import { InvalidRequest } from "@retail/api"
import { MAX_CODE_LENGTH } from "@retail/domain"
import { Effect } from "effect"
import { missingPart } from "../multipart/MissingPart.ts"

export const COMPANY = "company"

/** The company of an internal load: a text part, before the file (read as it streams) or after it (the file is kept until then). */
export const companyField = (fields: ReadonlyMap<string, string>) => {
  const company = fields.get(COMPANY)?.trim()
  if (company === undefined) return Effect.fail(missingPart(COMPANY, "text"))
  if (company.length === 0 || company.length > MAX_CODE_LENGTH) {
    return Effect.fail(new InvalidRequest({ message: `${COMPANY}: must be 1 to ${MAX_CODE_LENGTH} characters` }))
  }
  return Effect.succeed(company)
}
