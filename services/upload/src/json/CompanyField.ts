import { InvalidRequest } from "@retail/api"
import { MAX_CODE_LENGTH } from "@retail/domain"
import { Effect } from "effect"
import { PRODUCTS_JSON } from "./JsonFileLoad.ts"

export const COMPANY = "company"

/** The company of an internal load: a text part sent before the file, since the file is read as it streams. */
export const companyField = (fields: ReadonlyMap<string, string>) => {
  const company = fields.get(COMPANY)?.trim()
  if (company === undefined) {
    return Effect.fail(
      new InvalidRequest({ message: `The multipart part ${COMPANY} (a text field) is required, before the ${PRODUCTS_JSON} part` })
    )
  }
  if (company.length === 0 || company.length > MAX_CODE_LENGTH) {
    return Effect.fail(new InvalidRequest({ message: `${COMPANY}: must be 1 to ${MAX_CODE_LENGTH} characters` }))
  }
  return Effect.succeed(company)
}
