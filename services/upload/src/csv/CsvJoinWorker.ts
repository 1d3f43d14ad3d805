import { rowsTransfers } from "@retail/store/rows"
import { transferResult } from "../threads/TransferResult.ts"
import { type CsvJoinResult, type CsvJoinTask, runCsvJoinTask } from "./CsvJoinTask.ts"

/**
 * The entry of a CSV join worker thread (run by piscina, see CsvJoinPool.ts; bundled on its own by
 * scripts/buildServer.ts). The result's byte arrays are moved to the requesting thread, not copied.
 */
export default async function joinCsvPartition(task: CsvJoinTask) {
  const result: CsvJoinResult = await runCsvJoinTask(task)
  // Products written into the requester's shared buffer are already there; only a buffer of the worker's own is moved.
  const own = [result.accepted.buffer, result.products.buffer, result.ends.buffer, ...(result.rows === undefined ? [] : rowsTransfers(result.rows))]
    .filter((b) => b instanceof ArrayBuffer)
  return transferResult(result, own)
}
