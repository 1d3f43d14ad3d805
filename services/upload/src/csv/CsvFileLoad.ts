import { InvalidRequest } from "@retail/api"
import { type CsvFileHeader, type CsvFileHeaders, type CsvFileName, type CsvHeaderError, CsvLayouts, type CsvSyntaxError } from "@retail/ingest"
import { Clock, Effect } from "effect"
import type { HttpServerRequest } from "effect/http"
import { FileLoadPublisher } from "../publish/FileLoadPublisher.ts"
import { spoolJoinedPartitions } from "./CsvJoinedSpool.ts"
import { CsvJoinPool } from "./CsvJoinPool.ts"
import { makeCsvPartitions, partitionCountFor } from "./CsvPartitions.ts"
import { partitionCsvFile } from "./CsvPartSplitter.ts"
import { makeLoadSpool } from "../spool/LoadSpool.ts"
import { spoolItems } from "../spool/SpoolItems.ts"
import { entryFormatOf, UploadConfig } from "../UploadConfig.ts"
import { missingPart } from "../multipart/MissingPart.ts"
import { type FileContent, readMultipart } from "../multipart/MultipartUpload.ts"
import { joinedItems } from "./JoinedItems.ts"

/** The four parts, in the order a missing one is reported. */
export const CSV_PARTS: ReadonlyArray<CsvFileName> = ["productsCsv", "hierarchiesCsv", "barcodesCsv", "attributesCsv"]

const unreadable = (error: CsvSyntaxError | CsvHeaderError) =>
  new InvalidRequest({
    message: error._tag === "CsvHeaderError"
      ? `${error.message}. Nothing was published.`
      : `${error.file} is not a readable CSV file: ${error.message}. Nothing was published.`
  })

const missingParts = (missing: ReadonlyArray<CsvFileName>) =>
  missing.length === 1
    ? missingPart(missing[0]!, "file")
    : new InvalidRequest({ message: `The multipart parts ${missing.join(", ")} (files) are required` })

/**
 * A load of four CSV files (docs/csv-format.md): each part, in whatever order it arrives, has its
 * header checked and its rows split by productCode into partition files on disk; once all four
 * were read, partitions are joined, validated and spooled (by the join threads, CSV_JOIN_THREADS
 * partitions at a time, or one at a time in this fiber when it is 0), then published.
 */
export const csvFileLoad = (request: HttpServerRequest.HttpServerRequest, company: string) =>
  Effect.scoped(Effect.gen(function*() {
    const startedAt = yield* Clock.currentTimeMillis
    const config = yield* UploadConfig
    const publisher = yield* FileLoadPublisher
    const threads = yield* CsvJoinPool
    const declared = request.headers["content-length"]
    const partitions = yield* makeCsvPartitions(config.spoolDir, partitionCountFor(declared === undefined ? undefined : Number(declared)))
    const headers = new Map<CsvFileName, CsvFileHeader>()

    const part = (file: CsvFileName) => (content: FileContent) =>
      partitionCsvFile(content, CsvLayouts[file], partitions).pipe(
        Effect.map((header) => {
          headers.set(file, header)
        }),
        Effect.catchTags({ CsvSyntaxError: (e) => Effect.fail(unreadable(e)), CsvHeaderError: (e) => Effect.fail(unreadable(e)) })
      )

    yield* readMultipart(request, config.fileMaxBytes, {
      productsCsv: part("productsCsv"),
      hierarchiesCsv: part("hierarchiesCsv"),
      barcodesCsv: part("barcodesCsv"),
      attributesCsv: part("attributesCsv")
    }, { fields: [] })

    const products = headers.get("productsCsv")
    const hierarchies = headers.get("hierarchiesCsv")
    const barcodes = headers.get("barcodesCsv")
    const attributes = headers.get("attributesCsv")
    if (products === undefined || hierarchies === undefined || barcodes === undefined || attributes === undefined) {
      return yield* Effect.fail(missingParts(CSV_PARTS.filter((file) => !headers.has(file))))
    }
    const all: CsvFileHeaders = { productsCsv: products, hierarchiesCsv: hierarchies, barcodesCsv: barcodes, attributesCsv: attributes }
    yield* partitions.flush

    const spool = yield* makeLoadSpool(config.spoolDir)
    const options = {
      company,
      spool,
      batchSize: config.batchSize,
      responseErrorsCap: config.responseErrorsCap,
      codesInMemory: config.codesInMemory,
      format: entryFormatOf(config.batchEntryFormat, "file")
    }
    const totals = yield* (threads === undefined
      ? spoolItems(joinedItems(partitions, all), options)
      : spoolJoinedPartitions(partitions, all, threads, options))
    return yield* publisher.publish({ company, source: "HANDLE_CSV", spool, totals, startedAt })
  }))
