import { type FirstOccurrenceIndex, makeProductCodeIndex } from "@retail/domain"
import { join } from "node:path"
import { hashCode, makeRunLookupHashes } from "./RunLookupHashes.ts"
import { type ProductCodeRun, type ReadBuffer, writeProductCodeRun } from "./ProductCodeRun.ts"
import { filterBlocksFor, makeRunFilter, RunBloomFilters } from "./RunBloomFilters.ts"

/**
 * Codes kept in the in-memory ProductCodeIndex before they are written out as a run: about 9 MiB
 * of tables at 13-character codes (36 bytes a code), a quarter of what a million codes held
 * before. Each run then costs about 1.6 bytes a code in memory and one Bloom probe a lookup (RunBloomFilters).
 */
export const DEFAULT_CODES_IN_MEMORY = 256 * 1024

/**
 * The duplicate rule's index for a file load, bounded in memory whatever the file's size: the
 * first `codesInMemory` codes in the in-memory ProductCodeIndex, then, each time it fills, its
 * codes written to a run file in `dir` (ProductCodeRun) and the table cleared. A code is looked
 * for in every run (a Bloom probe each, the disk only on a hit) and then in memory; runs and table
 * never share a code, so the answers are those of one index of every code.
 *
 * A disk error stops the answers (each is then `undefined`) and is kept: `failure` says what it
 * was, so look at it after each chunk of products and before anything is published. `close` closes
 * and removes the run files. Synchronous: the answers come in line with the products.
 */
export interface SpillingCodeIndex extends FirstOccurrenceIndex {
  /** The disk error that stopped the answers, if one did. */
  readonly failure: () => { readonly cause: unknown } | undefined
  readonly size: () => number
  /** The run files written so far (and not yet removed). */
  readonly runs: () => ReadonlyArray<string>
  readonly close: () => void
}

export const openSpillingCodeIndex = (dir: string, requestedInMemory = DEFAULT_CODES_IN_MEMORY): SpillingCodeIndex => {
  const codesInMemory = Math.max(1, requestedInMemory)
  const memory = makeProductCodeIndex(Math.min(codesInMemory, 1024))
  const runs: Array<ProductCodeRun> = []
  const buffer: ReadBuffer = { bytes: Buffer.allocUnsafe(4096) }
  const hashes = makeRunLookupHashes()
  // Every run holds exactly `codesInMemory` codes, so their filters have one size and interleave.
  const filters = new RunBloomFilters(filterBlocksFor(codesInMemory))
  let spilled = 0
  let failure: { readonly cause: unknown } | undefined
  let closed = false

  const spill = (): void => {
    const filter = makeRunFilter(filters.blocks)
    const run = writeProductCodeRun(join(dir, `product-codes-${runs.length}.run`), memory.entries(), buffer, filter, filters.blocks)
    runs.push(run)
    filters.add(filter)
    spilled += run.count
    memory.clear()
  }

  return {
    firstOrAdd: (code, index) => {
      if (failure !== undefined || closed) return undefined
      try {
        if (runs.length > 0) {
          filters.prepare(hashCode(code, hashes))
          for (let run = filters.next(0); run !== -1; run = filters.next(run + 1)) {
            const first = runs[run]!.find(code, hashes)
            if (first !== undefined) return first
          }
        }
        const first = memory.firstOrAdd(code, index)
        if (first === undefined && memory.size() >= codesInMemory) spill()
        return first
      } catch (cause) {
        failure = { cause }
        return undefined
      }
    },
    failure: () => failure,
    size: () => spilled + memory.size(),
    runs: () => runs.map((run) => run.path),
    close: () => {
      closed = true
      for (const run of runs) run.close()
      runs.length = 0
      memory.clear()
    }
  }
}
