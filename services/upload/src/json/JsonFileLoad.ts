import { InvalidRequest, type PayloadTooLarge, StorageFailed } from "@retail/api"
import type { LoadSource } from "@retail/domain"
import { Clock, Effect, Option, type Stream } from "effect"
import type { HttpServerRequest } from "effect/http"
import { FileLoadPublisher } from "../publish/FileLoadPublisher.ts"
import { makeLoadSpool } from "../spool/LoadSpool.ts"
import type { SpoolTotals } from "../spool/SpoolItems.ts"
import { spoolJsonFile } from "./SpoolJsonFile.ts"
import { entryFormatOf, UploadConfig } from "../UploadConfig.ts"
import { type MultipartOptions, readMultipart } from "../multipart/MultipartUpload.ts"
import { missingPart } from "../multipart/MissingPart.ts"
import { rawFilePart } from "./RawFilePart.ts"

export const PRODUCTS_JSON = "productsJson"

export interface JsonFileLoadOptions extends MultipartOptions {
  /**
   * A text field `companyOf` reads that may come after the file: a file part that arrives before
   * it is kept as it came (rawFilePart) and scanned once the body has been read.
   */
  readonly companyField?: string
}

/**
 * A JSON products file load: the `productsJson` part is scanned, validated and spooled as it
 * arrives; only when it ended well is anything published. `companyOf` names the company once
 * the file part starts (from the caller's token, or from a field sent before the file), or, when
 * `options.companyField` is still missing then, once the whole body has been read (the file was
 * kept meanwhile); it runs in the load's scope, so what it acquires is held until the load ends.
 */
export const jsonFileLoad = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  source: LoadSource,
  companyOf: (fields: ReadonlyMap<string, string>) => Effect.Effect<string, E, R>,
  options: JsonFileLoadOptions = {}
) =>
  Effect.scoped(Effect.gen(function*() {
    const startedAt = yield* Clock.currentTimeMillis
    const config = yield* UploadConfig
    const publisher = yield* FileLoadPublisher
    const spool = yield* makeLoadSpool(config.spoolDir)
    let scanned = Option.none<{ readonly company: string; readonly totals: SpoolTotals }>()
    const kept = rawFilePart(spool.folder, PRODUCTS_JSON)
    let keptFile = false

    const scan = (content: Stream.Stream<Uint8Array, InvalidRequest | PayloadTooLarge | StorageFailed>, fields: ReadonlyMap<string, string>) =>
      Effect.gen(function*() {
        const company = yield* companyOf(fields)
        const totals = yield* spoolJsonFile(content, {
          company,
          spool,
          batchSize: config.batchSize,
          format: entryFormatOf(config.batchEntryFormat, "file"),
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

    const { fields } = yield* readMultipart(request, config.fileMaxBytes, {
      [PRODUCTS_JSON]: (content, fields) => {
        if (options.companyField === undefined || fields.has(options.companyField)) return scan(content, fields)
        keptFile = true
        return kept.write(content)
      }
    }, options)

    if (keptFile) yield* scan(kept.content(), fields)
    if (Option.isNone(scanned)) return yield* Effect.fail(missingPart(PRODUCTS_JSON, "file"))
    return yield* publisher.publish({ company: scanned.value.company, source, spool, totals: scanned.value.totals, startedAt })
  }))
