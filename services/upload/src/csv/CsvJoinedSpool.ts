import { Effect, Queue, Stream } from "effect"
import type { CsvFileHeaders } from "@retail/ingest"
import type { CsvJoinThreads } from "./CsvJoinPool.ts"
import type { CsvJoinResult, CsvJoinTask } from "./CsvJoinTask.ts"
import type { CsvPartitions } from "./CsvPartitions.ts"
import { makeSpoolWriter, type SpoolOptions } from "../spool/SpoolItems.ts"
import { rowCode } from "@retail/store"

/** First size of an output buffer; one a partition outgrew is replaced by one a quarter larger than that partition's products. */
const FIRST_OUTPUT_BYTES = 1024 * 1024

/**
 * The worker-thread half of a CSV load: every partition is joined, validated and encoded by the
 * join threads (`threads.threads` partitions at a time), and the results are spooled here in
 * partition order, item by item, by the spool writer `spoolItems` uses for `joinedItems`: the
 * same batches, error pages, totals and first errors, in the same order.
 * Memory: the results of at most 2 × `threads.threads` partitions waiting for their turn.
 *
 * The threads write each partition's products into one of 2 × `threads.threads` shared buffers, which
 * go back to the next partitions once spooled: a fresh buffer moved over per partition would be
 * external memory that makes this thread's collector run a full collection every few partitions.
 */
export const spoolJoinedPartitions = (
  partitions: Pick<CsvPartitions, "count" | "path">,
  headers: CsvFileHeaders,
  threads: CsvJoinThreads,
  options: SpoolOptions & {
    /** First size of each shared output buffer (default 1 MiB). */
    readonly firstOutputBytes?: number
  }
) =>
  Effect.suspend(() => {
    const { company } = options
    const taskHeaders: CsvJoinTask["headers"] = {
      productsCsv: { fields: headers.productsCsv.fields, delimiter: headers.productsCsv.delimiter },
      hierarchiesCsv: { fields: headers.hierarchiesCsv.fields, delimiter: headers.hierarchiesCsv.delimiter },
      barcodesCsv: { fields: headers.barcodesCsv.fields, delimiter: headers.barcodesCsv.delimiter },
      attributesCsv: { fields: headers.attributesCsv.fields, delimiter: headers.attributesCsv.delimiter }
    }
    const writer = makeSpoolWriter(options)

    // Each full batch is written before the next is built, so BatchBuffer reuses its two buffers
    // instead of allocating one per batch of a partition (external memory the collector chases).
    const consume = (result: CsvJoinResult) =>
      Effect.gen(function*() {
        let product = 0
        let error = 0
        const rows = result.rows
        for (let i = 0; i < result.accepted.length; i++) {
          if (result.accepted[i] === 1) {
            if (rows !== undefined) writer.acceptRow(rows, product, rowCode(rows, product))
            else {
              const start = product === 0 ? 0 : result.ends[product - 1]!
              writer.acceptBytes(result.products.subarray(start, result.ends[product]!))
            }
            product++
          } else {
            writer.fail(result.errors[error++]!)
          }
          if (writer.due()) yield* writer.drain
        }
      })

    // Twice as many tasks as threads: a thread finds its next partition queued while this fiber spools the last one.
    const concurrency = 2 * threads.threads
    const join = (outputs: Queue.Queue<SharedArrayBuffer>) => (partition: number) =>
      Effect.flatMap(Queue.take(outputs), (output) =>
        threads.run({ path: partitions.path(partition), company, headers: taskHeaders, output, encodeRows: writer.format === "columns" }).pipe(
          Effect.map((result) => ({ result, output })),
          Effect.tapError(() => Queue.offer(outputs, output))
        ))
    // Products in a shared buffer are in the one given (a view of it as received, not the same object).
    const outputAfter = (output: SharedArrayBuffer, result: CsvJoinResult) =>
      result.products.buffer instanceof SharedArrayBuffer ? output : new SharedArrayBuffer(Math.ceil(1.25 * result.products.length))

    return Effect.gen(function*() {
      const outputs = yield* Queue.unbounded<SharedArrayBuffer>()
      yield* Queue.offerAll(outputs, Array.from({ length: concurrency }, () => new SharedArrayBuffer(options.firstOutputBytes ?? FIRST_OUTPUT_BYTES)))
      yield* Stream.range(0, partitions.count - 1).pipe(
        Stream.mapEffect(join(outputs), { concurrency }),
        Stream.runForEach(({ output, result }) => Effect.andThen(consume(result), Queue.offer(outputs, outputAfter(output, result))))
      )
      yield* writer.finish
      return writer.totals()
    })
  })
