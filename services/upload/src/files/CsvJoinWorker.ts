import { move, transferableSymbol, valueSymbol } from "piscina"
import { type CsvJoinResult, type CsvJoinTask, runCsvJoinTask } from "./CsvJoinTask.ts"

/**
 * The entry of a CSV join worker thread (run by piscina, see CsvJoinPool.ts; bundled on its own by
 * scripts/buildServer.ts). The result's byte arrays are moved to the requesting thread, not copied.
 */
export default async function joinCsvPartition(task: CsvJoinTask) {
  const result: CsvJoinResult = await runCsvJoinTask(task)
  return move({
    [transferableSymbol]: [result.accepted.buffer, result.products.buffer, result.ends.buffer],
    [valueSymbol]: result
  })
}
