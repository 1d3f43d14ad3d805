import { Data, Option, Result, Schema } from "effect"
import { parseClock } from "./Calendar.ts"
import { MAX_CODE_LENGTH } from "./Checks.ts"
import { type FieldIssue, formatIssues, issuesOfRejected } from "./DecodeError.ts"
import { NetworkDocument } from "./Network.ts"
import { unitsPastIntegerIssues } from "./UnitBounds.ts"
import { unstorableIn } from "./UnstorableText.ts"

export class NetworkInvalid extends Data.TaggedError("NetworkInvalid")<{ readonly issues: ReadonlyArray<FieldIssue> }> {
  override get message(): string {
    return formatIssues(this.issues)
  }
}

const decodeDocument = Schema.decodeUnknownResult(NetworkDocument, { onExcessProperty: "ignore" })

/** Decode a network document and check its cross references; every problem names its JSON path. */
export const decodeNetwork = (input: unknown): Result.Result<NetworkDocument, NetworkInvalid> =>
  Result.match(decodeDocument(input), {
    onFailure: (error) => Result.fail(new NetworkInvalid({ issues: issuesOfRejected(NetworkDocument, input, error) })),
    onSuccess: (document) => {
      // The document is stored as it came (jsonb): every text of it, unknown fields too, must be storable.
      const unstorable = unstorableIn(input)
      const issues = unstorable === undefined ? crossReferenceIssues(document) : [unstorable, ...crossReferenceIssues(document)]
      return issues.length === 0 ? Result.succeed(document) : Result.fail(new NetworkInvalid({ issues }))
    }
  })

const clockOf = (text: string): number => Option.getOrElse(parseClock(text), () => 0)

export const crossReferenceIssues = (document: NetworkDocument): ReadonlyArray<FieldIssue> => {
  const issues: Array<FieldIssue> = []
  const nodeCodes = new Set<string>()
  document.nodes.forEach((node, i) => {
    if (nodeCodes.has(node.code)) issues.push({ path: `nodes[${i}].code`, message: `duplicate node code "${node.code}"` })
    nodeCodes.add(node.code)
  })
  const zoneCodes = new Set<string>()
  const zoneOfUbigeo = new Map<string, string>()
  document.zones.forEach((zone, i) => {
    if (zoneCodes.has(zone.code)) issues.push({ path: `zones[${i}].code`, message: `duplicate zone code "${zone.code}"` })
    zoneCodes.add(zone.code)
    zone.ubigeos.forEach((ubigeo, j) => {
      const owner = zoneOfUbigeo.get(ubigeo)
      if (owner !== undefined && owner !== zone.code) {
        issues.push({ path: `zones[${i}].ubigeos[${j}]`, message: `ubigeo ${ubigeo} is already covered by zone "${owner}"` })
      }
      zoneOfUbigeo.set(ubigeo, zone.code)
    })
    const windowCodes = new Set<string>()
    zone.windows.forEach((window, k) => {
      if (windowCodes.has(window.code)) {
        issues.push({ path: `zones[${i}].windows[${k}].code`, message: `duplicate window code "${window.code}"` })
      }
      windowCodes.add(window.code)
      if (clockOf(window.end) <= clockOf(window.start)) {
        issues.push({ path: `zones[${i}].windows[${k}].end`, message: `must be after start ${window.start}` })
      }
    })
  })
  const routeIds = new Set<string>()
  document.routes.forEach((route, i) => {
    if (routeIds.has(route.id)) issues.push({ path: `routes[${i}].id`, message: `duplicate route id "${route.id}"` })
    routeIds.add(route.id)
    if (!nodeCodes.has(route.source)) {
      issues.push({ path: `routes[${i}].source`, message: `unknown node "${route.source}"` })
    }
    const target = route.target
    if (target.kind === "NODE") {
      if (!nodeCodes.has(target.node)) {
        issues.push({ path: `routes[${i}].target.node`, message: `unknown node "${target.node}"` })
      } else if (target.node === route.source) {
        issues.push({ path: `routes[${i}].target.node`, message: "must differ from the source node" })
      }
    } else {
      target.zones.forEach((zone, j) => {
        if (!zoneCodes.has(zone)) issues.push({ path: `routes[${i}].target.zones[${j}]`, message: `unknown zone "${zone}"` })
      })
    }
  })
  document.stock.forEach((entry, i) => {
    if (!nodeCodes.has(entry.node)) issues.push({ path: `stock[${i}].node`, message: `unknown node "${entry.node}"` })
    // A SKU is a key of capacity_stock and a path parameter of GET /v1/stock/{sku}, as the feed's are (StockBatch.ts).
    if (entry.sku.length > MAX_CODE_LENGTH) {
      issues.push({ path: `stock[${i}].sku`, message: `expected a code of at most ${MAX_CODE_LENGTH} characters, got ${entry.sku.length}` })
    }
  })
  issues.push(...unitsPastIntegerIssues(document))
  return issues
}
