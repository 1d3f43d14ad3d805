import { Api, CurrentPrincipal, Scopes } from "@retail/api"
import { FileLoadSlots } from "@retail/limits"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { companyWithScope } from "./CompanyWithScope.ts"
import { CsvFileLoads } from "./csv/CsvFileLoads.ts"
import { JsonFileLoads } from "./json/JsonFileLoads.ts"
import { answerTooManyFileLoads } from "./multipart/TooManyFileLoadsAnswer.ts"

/** The `files` group of the contract: `/handle-json` and `/handle-csv`. */
export const FilesHttp = HttpApiBuilder.group(Api, "files", (handlers) =>
  Effect.gen(function*() {
    const slots = yield* FileLoadSlots
    const jsonLoads = yield* JsonFileLoads
    const csvLoads = yield* CsvFileLoads
    /** At most FILE_LOADS_PER_COMPANY file loads of one company at a time; one more is 429. */
    const inSlotOf = (company: string) => <A, E, R>(load: Effect.Effect<A, E, R>) => answerTooManyFileLoads(slots.withSlot(company)(load))
    const company = Effect.flatMap(CurrentPrincipal, (principal) => companyWithScope(principal, Scopes.productsWrite))
    return handlers
      .handleRaw("handleJson", ({ request }) => Effect.flatMap(company, (company) => jsonLoads.load(request, company).pipe(inSlotOf(company))))
      .handleRaw("handleCsv", ({ request }) => Effect.flatMap(company, (company) => csvLoads.load(request, company).pipe(inSlotOf(company))))
  })).pipe(Layer.provide(Layer.merge(JsonFileLoads.layer, CsvFileLoads.layer)))
