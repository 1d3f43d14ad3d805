import { InternalApi, InvalidRequest } from "@retail/api"
import { MAX_CODE_LENGTH } from "@retail/domain"
import { FileLoadSlots } from "@retail/limits"
import { Context, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { FileLoadPublisher } from "../publish/FileLoadPublisher.ts"
import { JsonValidationPool } from "./JsonValidationPool.ts"
import { UploadConfig } from "../UploadConfig.ts"
import { answerTooManyFileLoads } from "../multipart/TooManyFileLoadsAnswer.ts"
import { jsonFileLoad, PRODUCTS_JSON } from "./JsonFileLoad.ts"

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

/**
 * Served on the internal listener only: no token, the company is named by the caller. Its loads
 * take a slot of the FileLoadSlots it is given (the listener's own, INTERNAL_FILE_LOADS_PER_COMPANY)
 * once the company is read.
 */
export const InternalFilesHttp = HttpApiBuilder.group(InternalApi, "internalFiles", (handlers) =>
  Effect.gen(function*() {
    const slots = yield* FileLoadSlots
    /** What a file load runs on, required by this group's layer and given to each load (a handler's own needs would fall to the router). */
    const services = Context.pick(UploadConfig, FileLoadPublisher, JsonValidationPool)(
      yield* Effect.context<UploadConfig | FileLoadPublisher | JsonValidationPool>()
    )
    return handlers.handleRaw("handleJsonInt", ({ request }) =>
      answerTooManyFileLoads(
        jsonFileLoad(request, "HANDLE_JSON_INT", (fields) => Effect.tap(companyField(fields), slots.slotIn), { fields: [COMPANY] })
      ).pipe(Effect.provideContext(services)))
  }))
