// What the in-tree Effect 4 candidates of the `effect4` benchmark answer with: the server's own
// capacity settings at their defaults (services/capacity/src/CapacityConfig.ts) with the API keys of
// CAPACITY_API_KEYS, and the demo network's snapshot with no usage, as the capacity benchmark's
// in-process figure builds it (the server builds its snapshot on the usage actors' cells: the same
// network, the same empty usage). The answer itself is the server's (services/capacity/src/answer/AnswerCapacityRequest.ts).
import { buildSnapshot, decodeNetwork, demoNetwork, ledgerFromUses, type Snapshot } from "@retail/capacity"
import { Result } from "effect"
import { CapacityConfig, type CapacitySettings } from "../../../services/capacity/src/CapacityConfig.ts"

export const demoSettings = (apiKeys: ReadonlyArray<string>): CapacitySettings => CapacityConfig.settings({ apiKeys: new Set(apiKeys) })

export const demoSnapshot = (): Snapshot => {
  const document = Result.getOrElse(decodeNetwork(demoNetwork), (error) => {
    throw new Error(`the demo network does not decode: ${error.message}`)
  })
  return buildSnapshot(document, ledgerFromUses([]))
}

/** The settings and snapshot a candidate process serves: API keys from CAPACITY_API_KEYS (comma-separated). */
export const demoCapacity = (): { readonly settings: CapacitySettings; readonly snapshot: Snapshot } => ({
  settings: demoSettings((process.env["CAPACITY_API_KEYS"] ?? "").split(",").map((k) => k.trim()).filter((k) => k !== "")),
  snapshot: demoSnapshot()
})
