import { InvalidRequest, StorageFailed } from "@retail/api"
import type { LoadSource } from "@retail/domain"
import { Clock, Effect, Option } from "effect"
import type { HttpServerRequest } from "effect/http"
import { FileLoadPublisher } from "../publish/FileLoadPublisher.ts"
import { makeLoadSpool } from "../spool/LoadSpool.ts"
import type { SpoolTotals } from "../spool/SpoolItems.ts"
import { spoolJsonFile } from "./SpoolJsonFile.ts"
import { UploadConfig } from "../UploadConfig.ts"
import { type MultipartOptions, readMultipart } from "../multipart/MultipartUpload.ts"
import { missingPart } from "../multipart/MissingPart.ts"

export const PRODUCTS_JSON = "productsJson"

/**
 * A JSON products file load: the `productsJson` part is scanned, validated and spooled as it
 * arrives; only when it ended well is anything published. `companyOf` names the company once
 * the file part starts (from the caller's token, or from a field sent before the file); it runs
 * in the load's scope, so what it acquires is held until the load ends.
 */
export const jsonFileLoad = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  source: LoadSource,
  companyOf: (fields: ReadonlyMap<string, string>) => Effect.Effect<string, E, R>,
  options: MultipartOptions = {}
) =>
  Effect.scoped(Effect.gen(function*() {
    const startedAt = yield* Clock.currentTimeMillis
    const config = yield* UploadConfig
    const publisher = yield* FileLoadPublisher
    const spool = yield* makeLoadSpool(config.spoolDir)
    let scanned = Option.none<{ readonly company: string; readonly totals: SpoolTotals }>()

    yield* readMultipart(request, config.fileMaxBytes, {
      [PRODUCTS_JSON]: (content, fields) =>
        Effect.gen(function*() {
          const company = yield* companyOf(fields)
          const totals = yield* spoolJsonFile(content, {
            company,
            spool,
            batchSize: config.batchSize,
            responseErrorsCap: config.responseErrorsCap,
            codesInMemory: config.codesInMemory,
            productMaxValues: config.productMaxValues
          }).pipe(
            Effect.catchTags({
              JsonSyntaxError: (error) =>
                Effect.fail(new InvalidRequest({ message: `${PRODUCTS_JSON} is not a well-formed products file: ${error.message}. Nothing was published.` })),
              ValidationThreadFailed: (error) =>
                Effect.fail(new StorageFailed({ message: `The upload could not be validated (a validation thread failed: ${error.message}); nothing was published. Retry later.` }))
            })
          )
          scanned = Option.some({ company, totals })
        })
    }, options)

    if (Option.isNone(scanned)) return yield* Effect.fail(missingPart(PRODUCTS_JSON, "file"))
    return yield* publisher.publish({ company: scanned.value.company, source, spool, totals: scanned.value.totals, startedAt })
  }))
