import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Result } from "effect"
import fc from "fast-check"
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CODES_PER_BUCKET, hashCode, makeRunLookupHashes } from "@retail/ingest"
import { makeSpillingCodeIndex } from "../src/spool/LoadCodeIndex.ts"

/** The reference: what `firstOrAdd` must answer, kept in a Map. */
const referenceIndex = () => {
  const firsts = new Map<string, number>()
  return (code: string, index: number): number | undefined => {
    const first = firsts.get(code)
    if (first === undefined) firsts.set(code, index)
    return first
  }
}

/** Few distinct characters and short codes, so that codes repeat often, across runs; some wide (above U+00FF) or unpaired surrogates. */
const code = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: fc.constantFrom("A", "B", "0", "1", "-"), maxLength: 5 }) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom("a", "é", "ÿ", "\u0000"), maxLength: 4 }) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom("A", "Ā", "中", "😀", "\ud800"), maxLength: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 12 }) }
)

const freshDir = () => mkdtempSync(join(tmpdir(), "code-index-test-"))

describe("SpillingCodeIndex", () => {
  it("answers as a Map of first occurrences while its codes spill to several runs", () => {
    let severalRuns = 0
    fc.assert(
      fc.property(fc.array(code, { minLength: 20, maxLength: 300 }), fc.integer({ min: 1, max: 9 }), (codes, codesInMemory) => {
        const dir = freshDir()
        try {
          Effect.runSync(Effect.scoped(Effect.gen(function*() {
            const index = yield* makeSpillingCodeIndex(dir, codesInMemory)
            const reference = referenceIndex()
            codes.forEach((c, i) => expect(index.firstOrAdd(c, i)).toBe(reference(c, i)))
            // Every code again, in another order: found in whichever run (or the table) holds it.
            ;[...codes].reverse().forEach((c, i) => expect(index.firstOrAdd(c, 1000 + i)).toBe(reference(c, 1000 + i)))
            expect(index.size()).toBe(new Set(codes).size)
            expect(index.runs()).toHaveLength(Math.floor(new Set(codes).size / codesInMemory))
            if (index.runs().length >= 2) severalRuns++
            yield* index.check
          })))
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      }),
      { numRuns: 300 }
    )
    expect(severalRuns).toBeGreaterThan(200)
  })

  it("finds each of 200,000 codes again in 20 runs, codes whose hashes collide included", () => {
    const codes = Array.from({ length: 200_000 }, (_, i) => `PRD-${String(i * 7919).padStart(10, "0")}`)
    const byPlace = new Map<number, number>()
    const hashes = makeRunLookupHashes()
    let collisions = 0
    for (const c of codes) {
      const place = hashCode(c, hashes).place
      byPlace.set(place, (byPlace.get(place) ?? 0) + 1)
      if (byPlace.get(place) === 2) collisions++
    }
    // About n²/2³³ pairs share a 32-bit hash (and so a bucket): the lookup must tell them apart by the code.
    expect(collisions).toBeGreaterThan(0)
    const dir = freshDir()
    try {
      Effect.runSync(Effect.scoped(Effect.gen(function*() {
        const index = yield* makeSpillingCodeIndex(dir, 10_000)
        codes.forEach((c, i) => expect(index.firstOrAdd(c, i)).toBeUndefined())
        expect(index.runs()).toHaveLength(20)
        codes.forEach((c, i) => expect(index.firstOrAdd(c, 9_000_000 + i)).toBe(i))
        expect(index.firstOrAdd("PRD-absent", 1)).toBeUndefined()
        expect(index.size()).toBe(200_001)
        yield* index.check
      })))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("finds the codes of every bucket of a run, narrow and wide, and the table's after it", () => {
    const dir = freshDir()
    try {
      Effect.runSync(Effect.scoped(Effect.gen(function*() {
        const count = CODES_PER_BUCKET * 8 + 5
        const index = yield* makeSpillingCodeIndex(dir, count)
        const codes = Array.from({ length: count }, (_, i) => `${i % 2 === 0 ? "N" : "Ω"}${i}`)
        codes.forEach((c, i) => expect(index.firstOrAdd(c, i)).toBeUndefined())
        expect(index.runs()).toHaveLength(1)
        codes.forEach((c, i) => expect(index.firstOrAdd(c, count + i)).toBe(i))
      })))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it.effect("removes its run files when its scope closes: after success, after a failure and on interruption", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const filled = (seen: Array<string>) =>
        Effect.gen(function*() {
          const index = yield* makeSpillingCodeIndex(dir, 4)
          for (let i = 0; i < 20; i++) index.firstOrAdd(`C${i}`, i)
          seen.push(...index.runs())
          expect(seen).toHaveLength(5)
          for (const path of seen) expect(existsSync(path)).toBe(true)
        })

      const afterSuccess: Array<string> = []
      yield* Effect.scoped(filled(afterSuccess))
      const afterFailure: Array<string> = []
      const failed = yield* Effect.exit(Effect.scoped(Effect.andThen(filled(afterFailure), Effect.fail("the upload broke"))))
      expect(Exit.isFailure(failed)).toBe(true)
      const afterInterruption: Array<string> = []
      const fiber = yield* Effect.forkChild(Effect.scoped(Effect.andThen(filled(afterInterruption), Effect.never)))
      for (let turn = 0; turn < 1000 && afterInterruption.length === 0; turn++) yield* Effect.yieldNow
      yield* Fiber.interrupt(fiber)
      expect(afterInterruption).toHaveLength(5)

      for (const path of [...afterSuccess, ...afterFailure, ...afterInterruption]) expect(existsSync(path)).toBe(false)
      expect(readdirSync(dir)).toEqual([])
      rmSync(dir, { recursive: true, force: true })
    }))

  it.effect("a disk error is a StorageFailed from check, never a throw, and the index answers nothing more", () =>
    Effect.gen(function*() {
      const parent = freshDir()
      const dir = join(parent, "gone")
      const result = yield* Effect.scoped(Effect.gen(function*() {
        const index = yield* makeSpillingCodeIndex(dir, 2)
        expect(index.firstOrAdd("A", 0)).toBeUndefined()
        expect(index.firstOrAdd("B", 1)).toBeUndefined()
        expect(index.firstOrAdd("A", 2)).toBeUndefined()
        return yield* Effect.result(index.check)
      }))
      expect(Result.isFailure(result) && result.failure._tag).toBe("StorageFailed")
      expect(Result.isFailure(result) && result.failure.message).toMatch(
        /^The upload could not be checked for repeated productCodes in temporary storage \(ENOENT: .*\); nothing was published\. Retry later\.$/
      )
      rmSync(parent, { recursive: true, force: true })
    }))
})
