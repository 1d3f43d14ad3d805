/**
 * Entry of a JSON validation thread (a piscina worker; bundled on its own as
 * dist/server.json-validation-thread.mjs by scripts/buildServer.ts): validates one block per task and
 * hands its buffers back to the event loop's thread by transfer, not by copy.
 */
import { blockTransfers, type JsonBlock, validateJsonBlock } from "@retail/ingest"
import { transferResult } from "../threads/TransferResult.ts"

export default (block: JsonBlock) => {
  const result = validateJsonBlock(block)
  return transferResult(result, blockTransfers(block))
}
