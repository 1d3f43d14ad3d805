import { HttpApiBuilder } from "@effect/platform"
import { Api, CurrentPrincipal, Scopes } from "@retail/api"
import { Effect } from "effect"
import { csvFileLoad } from "./CsvFileLoad.ts"
import { jsonFileLoad } from "./JsonFileLoad.ts"
import { companyWithScope } from "./ProductsHttp.ts"

export const FilesHttp = HttpApiBuilder.group(Api, "files", (handlers) =>
  Effect.succeed(
    handlers
      .handleRaw("handleJson", ({ request }) =>
        Effect.gen(function*() {
          const company = yield* companyWithScope(yield* CurrentPrincipal, Scopes.productsWrite)
          return yield* jsonFileLoad(request, "HANDLE_JSON", () => Effect.succeed(company))
        }))
      .handleRaw("handleCsv", ({ request }) =>
        Effect.gen(function*() {
          const company = yield* companyWithScope(yield* CurrentPrincipal, Scopes.productsWrite)
          return yield* csvFileLoad(request, company)
        }))
  ))
