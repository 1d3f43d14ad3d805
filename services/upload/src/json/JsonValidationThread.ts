/**
 * Entry of a JSON validation thread (a piscina worker; bundled on its own as
 * dist/server.json-validation-thread.mjs by scripts/buildServer.ts): validates one block per task
 * (and encodes its accepted products' columns when asked) and hands the buffers back to the event
 * loop's thread by transfer, not by copy.
 */
import { transferResult } from "../threads/TransferResult.ts"
import { type JsonValidationTask, runValidation, validatedTransfers } from "./JsonValidationTask.ts"

export default (task: JsonValidationTask) => {
  const result = runValidation(task)
  return transferResult(result, validatedTransfers(result))
}
