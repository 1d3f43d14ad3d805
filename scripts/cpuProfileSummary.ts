import { originalPositionFor, TraceMap } from "@jridgewell/trace-mapping"
import { Schema } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { relative } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * Summarises a `.cpuprofile` (node --cpu-prof) as markdown: self time by function, the top N, each
 * with its inclusive time and, for a bundle with a source map beside it (dist/server.mjs.map), the
 * source file and line it came from; then self time by package or source folder.
 *
 *   npx tsx scripts/cpuProfileSummary.ts <file.cpuprofile> [--top 25] [--from ms] [--to ms]
 *
 * `--from` and `--to` keep the samples of a window (ms since the profile began), so that start-up
 * and shutdown can be left out.
 */

const CallFrame = Schema.Struct({
  functionName: Schema.String,
  url: Schema.String,
  lineNumber: Schema.Number,
  columnNumber: Schema.Number
})
const ProfileNode = Schema.Struct({
  id: Schema.Number,
  callFrame: CallFrame,
  children: Schema.optional(Schema.Array(Schema.Number))
})
const CpuProfile = Schema.Struct({
  nodes: Schema.Array(ProfileNode),
  startTime: Schema.Number,
  endTime: Schema.Number,
  samples: Schema.Array(Schema.Number),
  timeDeltas: Schema.Array(Schema.Number)
})
type CpuProfile = typeof CpuProfile.Type
type CallFrame = typeof CallFrame.Type

export interface FunctionTime {
  readonly name: string
  readonly location: string
  /** µs with this function on top of the stack. */
  readonly selfMicros: number
  /** µs with this function anywhere on the stack. */
  readonly totalMicros: number
}

export interface ProfileSummary {
  /** µs covered by the samples kept. */
  readonly sampledMicros: number
  readonly functions: ReadonlyArray<FunctionTime>
  /** Self time by package (node_modules) or source folder. */
  readonly areas: ReadonlyArray<{ readonly area: string; readonly selfMicros: number }>
}

const repositoryRoot = fileURLToPath(new URL("../", import.meta.url))

/** Maps a frame of a bundle to its source (file:line), with the bundle's `.map` when there is one. */
const makeLocator = () => {
  const maps = new Map<string, TraceMap | undefined>()
  const mapOf = (url: string): TraceMap | undefined => {
    if (!maps.has(url)) {
      const file = url.startsWith("file://") ? fileURLToPath(url) : url
      maps.set(url, existsSync(`${file}.map`) ? new TraceMap(readFileSync(`${file}.map`, "utf8"), url) : undefined)
    }
    return maps.get(url)
  }
  const shorten = (file: string): string => {
    const path = file.startsWith("file://") ? fileURLToPath(file) : file
    const inRepository = path.startsWith("/") ? relative(repositoryRoot, path) : path
    return inRepository.replace(/^(\.\.\/)+/, "")
  }
  return (frame: CallFrame): string => {
    if (frame.url === "") return ""
    const map = mapOf(frame.url)
    if (map !== undefined) {
      // cpuprofile positions are 0-based; trace-mapping's lines are 1-based, its columns 0-based.
      const original = originalPositionFor(map, { line: frame.lineNumber + 1, column: frame.columnNumber })
      if (original.source !== null) return `${shorten(original.source)}:${original.line}`
    }
    return `${shorten(frame.url)}:${frame.lineNumber + 1}`
  }
}

/** node_modules/<package> or the first two folders of a source path; V8's own entries as they are. */
const areaOf = (location: string, name: string): string => {
  if (location === "") return name
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(location)
  if (modules !== null) return modules[1] ?? location
  if (location.startsWith("node:")) return "node: (built-in modules)"
  return location.split("/").slice(0, 3).join("/").replace(/:\d+$/, "")
}

export const summarise = (profile: CpuProfile, window: { readonly fromMs?: number; readonly toMs?: number } = {}): ProfileSummary => {
  const locate = makeLocator()
  const parentOf = new Map<number, number>()
  const keyOf = new Map<number, string>()
  const described = new Map<string, { readonly name: string; readonly location: string }>()
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parentOf.set(child, node.id)
    const location = locate(node.callFrame)
    const name = node.callFrame.functionName === "" ? "(anonymous)" : node.callFrame.functionName
    const key = `${name} ${location}`
    keyOf.set(node.id, key)
    described.set(key, { name, location })
  }
  const self = new Map<string, number>()
  const total = new Map<string, number>()
  let elapsed = 0
  let sampled = 0
  const from = (window.fromMs ?? 0) * 1000
  const to = (window.toMs ?? Infinity) * 1000
  profile.samples.forEach((id, i) => {
    // A sample's delta is the time since the previous one: it is charged to this sample's stack.
    const delta = profile.timeDeltas[i] ?? 0
    elapsed += delta
    if (elapsed < from || elapsed > to) return
    sampled += delta
    const top = keyOf.get(id) ?? "?"
    self.set(top, (self.get(top) ?? 0) + delta)
    const onStack = new Set<string>()
    for (let node: number | undefined = id; node !== undefined; node = parentOf.get(node)) onStack.add(keyOf.get(node) ?? "?")
    for (const key of onStack) total.set(key, (total.get(key) ?? 0) + delta)
  })
  const functions = [...self.entries()]
    .map(([key, selfMicros]) => ({ ...(described.get(key) ?? { name: key, location: "" }), selfMicros, totalMicros: total.get(key) ?? selfMicros }))
    .sort((a, b) => b.selfMicros - a.selfMicros)
  const areas = new Map<string, number>()
  for (const f of functions) {
    const area = areaOf(f.location, f.name)
    areas.set(area, (areas.get(area) ?? 0) + f.selfMicros)
  }
  return {
    sampledMicros: sampled,
    functions,
    areas: [...areas.entries()].map(([area, selfMicros]) => ({ area, selfMicros })).sort((a, b) => b.selfMicros - a.selfMicros)
  }
}

const percent = (part: number, whole: number): string => `${((100 * part) / Math.max(whole, 1)).toFixed(1)}%`
const ms = (micros: number): string => (micros / 1000).toFixed(0)

export const toMarkdown = (summary: ProfileSummary, top: number): string => {
  const busy = summary.sampledMicros - summary.functions.filter((f) => f.name === "(idle)").reduce((sum, f) => sum + f.selfMicros, 0)
  return [
    `${ms(summary.sampledMicros)} ms sampled, ${ms(busy)} ms of it not idle; percentages are of the time not idle.`,
    "",
    "| # | function | source | self ms | self | total |",
    "|---:|---|---|---:|---:|---:|",
    ...summary.functions.filter((f) => f.name !== "(idle)").slice(0, top).map((f, i) =>
      `| ${i + 1} | \`${f.name}\` | ${f.location === "" ? "" : `\`${f.location}\``} | ${ms(f.selfMicros)} | ${percent(f.selfMicros, busy)} | ${percent(f.totalMicros, busy)} |`
    ),
    "",
    "| area | self ms | self |",
    "|---|---:|---:|",
    ...summary.areas.filter((a) => a.area !== "(idle)").slice(0, 15).map((a) => `| ${a.area} | ${ms(a.selfMicros)} | ${percent(a.selfMicros, busy)} |`)
  ].join("\n")
}

const optionOf = (args: ReadonlyArray<string>, name: string): number | undefined => {
  const at = args.indexOf(name)
  const value = at === -1 ? undefined : Number(args[at + 1])
  return value === undefined || Number.isNaN(value) ? undefined : value
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  const file = args[0]
  if (file === undefined) {
    console.error("usage: npx tsx scripts/cpuProfileSummary.ts <file.cpuprofile> [--top 25] [--from ms] [--to ms]")
    process.exit(2)
  }
  const profile = Schema.decodeUnknownSync(Schema.fromJsonString(CpuProfile))(readFileSync(file, "utf8"))
  const fromMs = optionOf(args, "--from")
  const toMs = optionOf(args, "--to")
  const summary = summarise(profile, { ...(fromMs === undefined ? {} : { fromMs }), ...(toMs === undefined ? {} : { toMs }) })
  console.log(toMarkdown(summary, optionOf(args, "--top") ?? 25))
}
