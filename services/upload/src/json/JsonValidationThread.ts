/**
 * Entry of a JSON validation thread (a piscina worker; bundled on its own as
 * dist/json-validation-thread.mjs by scripts/buildServer.ts): validates one block per task and
 * hands its buffers back to the event loop's thread by transfer, not by copy.
 */
import { move, transferableSymbol, valueSymbol } from "piscina"
import { type JsonBlock, validateJsonBlock } from "@retail/ingest"

export default (block: JsonBlock) => {
  const result = validateJsonBlock(block)
  return move({ [transferableSymbol]: [block.bytes, block.layout], [valueSymbol]: result })
}
