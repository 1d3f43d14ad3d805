import { buildSnapshot, decodeNetwork, defaultEngineOptions, demoNetwork, ledgerFromUses, type NetworkDocument, type Snapshot } from "@retail/capacity"
import {
  decodeDeliveryRequestA,
  decodeDeliveryRequestB,
  encodeDeliveryResponseB,
  encodeDeliveryResults,
  evaluateVariantA,
  evaluateVariantB
} from "@retail/capacity-wire"
import { Result } from "effect"
import { BenchmarkFailure } from "../Benchmark.ts"

/**
 * The endpoint's own work for one request body without HTTP (decode, evaluate, encode), as the
 * capacity benchmarks measure it in-process. Kept free of the runner's dependencies (servers,
 * esbuild), so that a bundle of it runs alone (capacity-instructions).
 */

/** The demo network's document, decoded. */
export const demoDocument = (): NetworkDocument =>
  Result.getOrElse(decodeNetwork(demoNetwork), (error) => {
    throw new BenchmarkFailure(`the demo network does not decode: ${error.message}`)
  })

/** The demo network with nothing used: every plan after the first request is reused. */
export const demoSnapshot = (): Snapshot => buildSnapshot(demoDocument(), ledgerFromUses([]))

/** `epochMillis`: the clock the engine reads (now unless given; answers change at cut-offs and dates). */
export const answerVariantA = (snapshot: Snapshot, body: string, label = "variant A", epochMillis = Date.now()): Uint8Array => {
  const decoded = decodeDeliveryRequestA(JSON.parse(body))
  if (Result.isFailure(decoded)) throw new BenchmarkFailure(`${label} body refused: ${decoded.failure.message}`)
  const results = evaluateVariantA(snapshot, decoded.success, epochMillis, defaultEngineOptions)
  if (Result.isFailure(results)) throw new BenchmarkFailure(`${label} body not routed: ${results.failure.message}`)
  return encodeDeliveryResults(results.success)
}

export const answerVariantB = (snapshot: Snapshot, body: string, label = "variant B", epochMillis = Date.now()): Uint8Array => {
  const decoded = decodeDeliveryRequestB(JSON.parse(body))
  if (Result.isFailure(decoded)) throw new BenchmarkFailure(`${label} body refused: ${decoded.failure.message}`)
  const response = evaluateVariantB(snapshot, decoded.success, epochMillis, defaultEngineOptions)
  if (Result.isFailure(response)) throw new BenchmarkFailure(`${label} body not routed: ${response.failure.message}`)
  return encodeDeliveryResponseB(response.success)
}
