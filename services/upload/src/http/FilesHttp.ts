import { HttpApiBuilder } from "@effect/platform"
import { Api, CurrentPrincipal, InvalidRequest, Scopes, tooManyRequests } from "@retail/api"
import { FileLoadSlots } from "@retail/limits"
import { Effect } from "effect"
import { jsonFileLoad } from "./JsonFileLoad.ts"
import { companyWithScope } from "./ProductsHttp.ts"

export const FilesHttp = HttpApiBuilder.group(Api, "files", (handlers) =>
  Effect.map(FileLoadSlots, (slots) =>
    handlers
      .handleRaw("handleJson", ({ request }) =>
        Effect.gen(function*() {
          const company = yield* companyWithScope(yield* CurrentPrincipal, Scopes.productsWrite)
          return yield* jsonFileLoad(request, "HANDLE_JSON", () => Effect.succeed(company), { fields: [] }).pipe(
            slots.withSlot(company),
            Effect.catchTag("TooManyFileLoads", (busy) =>
              tooManyRequests(
                busy.retryAfterSeconds,
                `Company ${busy.company} already has ${busy.limit} file loads in progress (FILE_LOADS_PER_COMPANY); retry after ${busy.retryAfterSeconds} s`
              ))
          )
        }))
      .handleRaw("handleCsv", () => Effect.fail(new InvalidRequest({ message: "POST /v1/handle-csv is not implemented yet" })))
  ))
