// Parser comparison: npx tsx benchmarks/parsers/run.ts [--products N] [--only substring] [--runs N]
// Generates seeded inputs into the OS temp dir (if missing), runs every candidate in its own
// child process (so peak RSS is not shared) and writes benchmarks/parsers/results.md.
// The suite (npm run bench: handle-json, handle-csv) runs the chosen candidates from the same file.
import { statSync, writeFileSync } from "node:fs"
import { cpus, loadavg, totalmem } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Measure, measureCandidate } from "../src/support/Candidates.ts"
import { ensureInputs, inputsDir } from "./generate.ts"

const here = dirname(fileURLToPath(import.meta.url))
const arg = (flag: string): string | undefined => {
  const i = process.argv.indexOf(flag)
  return i > 0 ? process.argv[i + 1] : undefined
}
const products = Number(arg("--products") ?? 200_000)
const only = arg("--only")
const runs = Number(arg("--runs") ?? 3)

const JSON_CANDIDATES = [
  "json:scanner",
  "json:scanner-effect-stream",
  "json:JSON.parse-whole-file",
  "json:stream-json-streamArray",
  "json:stream-json-streamArray-streamValues-false"
]
const CSV_CANDIDATES = [
  "csv:mine-rows",
  "csv:mine-typed-records",
  "csv:udsv-stringArrs",
  "csv:udsv-stringObjs",
  "csv:papaparse-arrays",
  "csv:papaparse-objects",
  "csv:csv-parse-arrays",
  "csv:csv-parse-columns"
]

const measure = (name: string, files: ReadonlyArray<string>): Promise<Measure | string> =>
  measureCandidate(name, files).catch((e: unknown) => (e instanceof Error ? e.message.split("\n")[0] ?? "failed" : "failed"))

const mb = (bytes: number): string => (bytes / 1e6).toFixed(1)
const rate = (m: Measure): number => m.bytes / 1e6 / (m.ms / 1000)
/** Best and median of several runs: the machine is shared, so the best run is the least disturbed one. */
const row = (ms: ReadonlyArray<Measure | string>, name: string): string => {
  const ok = ms.filter((m): m is Measure => typeof m !== "string").sort((a, b) => rate(b) - rate(a))
  const best = ok[0]
  if (best === undefined) return `| ${name} | failed: ${String(ms[0])} | | | | | |`
  const median = ok[Math.floor((ok.length - 1) / 2)]!
  const peak = Math.max(...ok.map((m) => m.peakRssMb))
  const delta = Math.max(...ok.map((m) => m.peakRssMb - m.startRssMb))
  return `| ${name} | ${rate(best).toFixed(1)} | ${rate(median).toFixed(1)} | ${(best.ms / 1000).toFixed(2)} | ${best.items} | ${peak.toFixed(0)} | ${delta.toFixed(0)} |`
}

const main = async (): Promise<void> => {
  console.log(`inputs: ${products} products in ${inputsDir} (generated once)`)
  const files = await ensureInputs(products)
  const csvFiles = [files.productsCsv, files.hierarchiesCsv, files.barcodesCsv, files.attributesCsv]
  const jsonBytes = statSync(files.json).size
  const csvBytes = csvFiles.reduce((s, f) => s + statSync(f).size, 0)
  const lines: Array<string> = []
  const header = `| candidate | MB/s best of ${runs} | MB/s median | seconds (best) | items | peak RSS (MiB) | peak RSS - RSS after imports (MiB) |\n|---|---:|---:|---:|---:|---:|---:|`
  const section = async (title: string, names: ReadonlyArray<string>, inputs: ReadonlyArray<string>): Promise<void> => {
    lines.push(`## ${title}`, "", header)
    for (const name of names) {
      if (only !== undefined && !name.includes(only)) continue
      const ms: Array<Measure | string> = []
      for (let i = 0; i < runs; i++) ms.push(await measure(name, inputs))
      const text = row(ms, name)
      console.log(text)
      lines.push(text)
    }
    lines.push("")
  }
  const startLoad = loadavg().map((l) => l.toFixed(1)).join(", ")
  const baseline = await measure("read-only", [files.json])
  await section(`JSON: ${products} products, ${mb(jsonBytes)} MB (${(jsonBytes / products).toFixed(0)} bytes/product)`, JSON_CANDIDATES, [files.json])
  await section(`CSV: the four files of ${products} products, ${mb(csvBytes)} MB in all, read one after the other`, CSV_CANDIDATES, csvFiles)
  const cpu = cpus()
  const report = [
    "# Parser comparison",
    "",
    `Command: \`npx tsx benchmarks/parsers/run.ts --products ${products}\` (inputs generated with seed 42 by \`generate.ts\`).`,
    `Machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? "unknown CPU"}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}. Run: ${new Date().toISOString()}.`,
    "",
    `Load average when the run ended: ${loadavg().map((l) => l.toFixed(1)).join(", ")} (the machine is shared with other work; figures are best and median of ${runs} runs).`,
    "",
    "Each candidate runs in its own child process (`node --import tsx candidates.ts <name> <files>`), reading the",
    "file(s) with `fs.createReadStream` in 64 KiB chunks (whole-file JSON.parse: `readFileSync`). Time is first byte to",
    "last item, JIT warm-up included; MB = 10^6 bytes. Peak RSS is the child's `maxRSS`; the last column subtracts the",
    "RSS measured after the candidate's imports, before reading (the tsx loader and Effect alone take 70-150 MiB).",
    typeof baseline === "string" ? "" : `Load average when the run started: ${startLoad}. Reading the JSON file and doing nothing: ${(baseline.bytes / 1e6 / (baseline.ms / 1000)).toFixed(0)} MB/s, peak RSS ${baseline.peakRssMb.toFixed(0)} MiB.`,
    "",
    ...lines
  ]
  writeFileSync(join(here, "results.md"), report.join("\n"))
  console.log(`wrote ${join(here, "results.md")}`)
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
