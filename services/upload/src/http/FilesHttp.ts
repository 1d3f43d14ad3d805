import { HttpApiBuilder } from "@effect/platform"
import { Api, CurrentPrincipal, Scopes } from "@retail/api"
import { FileLoadSlots } from "@retail/limits"
import { Effect } from "effect"
import { refuseBusyCompany } from "./BusyCompany.ts"
import { csvFileLoad } from "./CsvFileLoad.ts"
import { jsonFileLoad } from "./JsonFileLoad.ts"
import { companyWithScope } from "./ProductsHttp.ts"

export const FilesHttp = HttpApiBuilder.group(Api, "files", (handlers) =>
  Effect.map(FileLoadSlots, (slots) => {
    /** At most FILE_LOADS_PER_COMPANY file loads of one company at a time; one more is 429. */
    const inSlotOf = (company: string) => <A, E, R>(load: Effect.Effect<A, E, R>) => refuseBusyCompany(slots.withSlot(company)(load))
    return handlers
      .handleRaw("handleJson", ({ request }) =>
        Effect.gen(function*() {
          const company = yield* companyWithScope(yield* CurrentPrincipal, Scopes.productsWrite)
          return yield* jsonFileLoad(request, "HANDLE_JSON", () => Effect.succeed(company), { fields: [] }).pipe(inSlotOf(company))
        }))
      .handleRaw("handleCsv", ({ request }) =>
        Effect.gen(function*() {
          const company = yield* companyWithScope(yield* CurrentPrincipal, Scopes.productsWrite)
          return yield* csvFileLoad(request, company).pipe(inSlotOf(company))
        }))
  }))
