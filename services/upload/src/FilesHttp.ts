import { Api, CurrentPrincipal, Scopes } from "@retail/api"
import { FileLoadSlots } from "@retail/limits"
import { Context, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CsvJoinPool } from "./csv/CsvJoinPool.ts"
import { FileLoadPublisher } from "./publish/FileLoadPublisher.ts"
import { JsonValidationPool } from "./json/JsonValidationPool.ts"
import { UploadConfig } from "./UploadConfig.ts"
import { answerTooManyFileLoads } from "./multipart/TooManyFileLoadsAnswer.ts"
import { csvFileLoad } from "./csv/CsvFileLoad.ts"
import { jsonFileLoad } from "./json/JsonFileLoad.ts"
import { companyWithScope } from "./CompanyWithScope.ts"

export const FilesHttp = HttpApiBuilder.group(Api, "files", (handlers) =>
  Effect.gen(function*() {
    const slots = yield* FileLoadSlots
    /** What a file load runs on, required by this group's layer and given to each load (a handler's own needs would fall to the router). */
    const services = Context.pick(UploadConfig, FileLoadPublisher, CsvJoinPool, JsonValidationPool)(
      yield* Effect.context<UploadConfig | FileLoadPublisher | CsvJoinPool | JsonValidationPool>()
    )
    /** At most FILE_LOADS_PER_COMPANY file loads of one company at a time; one more is 429. */
    const inSlotOf = (company: string) => <A, E, R>(load: Effect.Effect<A, E, R>) => answerTooManyFileLoads(slots.withSlot(company)(load))
    return handlers
      .handleRaw("handleJson", ({ request }) =>
        Effect.gen(function*() {
          const company = yield* companyWithScope(yield* CurrentPrincipal, Scopes.productsWrite)
          return yield* jsonFileLoad(request, "HANDLE_JSON", () => Effect.succeed(company), { fields: [] }).pipe(inSlotOf(company))
        }).pipe(Effect.provideContext(services)))
      .handleRaw("handleCsv", ({ request }) =>
        Effect.gen(function*() {
          const company = yield* companyWithScope(yield* CurrentPrincipal, Scopes.productsWrite)
          return yield* csvFileLoad(request, company).pipe(inSlotOf(company))
        }).pipe(Effect.provideContext(services)))
  }))
