import { InternalApi } from "@retail/api"
import { FileLoadSlots } from "@retail/limits"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answerTooManyFileLoads } from "../multipart/TooManyFileLoadsAnswer.ts"
import { JsonFileLoads } from "./JsonFileLoads.ts"

/**
 * Served on the internal listener only: no token, the company is named by the caller. Its loads
 * take a slot of the FileLoadSlots it is given (the listener's own, INTERNAL_FILE_LOADS_PER_COMPANY)
 * once the company is read.
 */
export const InternalFilesHttp = HttpApiBuilder.group(InternalApi, "internalFiles", (handlers) =>
  Effect.gen(function*() {
    const slots = yield* FileLoadSlots
    const loads = yield* JsonFileLoads
    return handlers.handleRaw("handleJsonInt", ({ request }) => answerTooManyFileLoads(loads.loadNamingCompany(request, slots.slotIn)))
  })).pipe(Layer.provide(JsonFileLoads.layer))
