// /handle-csv benchmark: npx tsx benchmarks/csv/run.ts [--products N] [--seed S] [--runs R]
// Generates seeded inputs (if missing; the suite's generator, benchmarks/parsers/generate.ts), runs the pipeline R times,
// each in its own process, writes results.md. `npm run bench -- handle-csv` measures the same pipeline beside HTTP.
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { cpus, loadavg, totalmem } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { ensureInputs } from "../parsers/generate.ts"

interface Result {
  readonly bytes: number
  readonly partitions: number
  readonly products: number
  readonly accepted: number
  readonly failed: number
  readonly splitMs: number
  readonly joinMs: number
  readonly ms: number
  readonly splitCpuMs: number
  readonly cpuMs: number
  readonly heapLimitMb: number
  readonly startHeapMb: number
  readonly peakHeapMb: number
  readonly startRssMb: number
  readonly splitRssMb: number
  readonly peakRssMb: number
}

const here = dirname(fileURLToPath(import.meta.url))
const arg = (flag: string): string | undefined => {
  const i = process.argv.indexOf(flag)
  return i > 0 ? process.argv[i + 1] : undefined
}
const products = Number(arg("--products") ?? 200_000)
const seed = Number(arg("--seed") ?? 42)
const runs = Number(arg("--runs") ?? 3)
/** Caps the V8 heap of each run (MiB): completing under a small cap shows that memory does not grow with the input. */
const heap = arg("--heap")

const inputs = await ensureInputs(products, seed)
const files = [inputs.productsCsv, inputs.hierarchiesCsv, inputs.barcodesCsv, inputs.attributesCsv]
const loadBefore = loadavg().map((l) => l.toFixed(1)).join(", ")
const results: Array<Result> = []
for (let i = 0; i < runs; i++) {
  const out = execFileSync(process.execPath, [...(heap === undefined ? [] : [`--max-old-space-size=${heap}`]), "--import", "tsx", join(here, "join.ts"), ...files], { encoding: "utf8", maxBuffer: 1 << 20 })
  const result = JSON.parse(out.trim().split("\n").pop() ?? "") as Result
  results.push(result)
  console.log(JSON.stringify(result))
}
const loadAfter = loadavg().map((l) => l.toFixed(1)).join(", ")
const mbs = (r: Result, ms: number) => (r.bytes / 1e6 / (ms / 1000)).toFixed(1)
const rows = results.map((r, i) =>
  `| ${i + 1} | ${(r.bytes / 1e6).toFixed(1)} | ${r.products} | ${r.partitions} | ${mbs(r, r.ms)} | ${(r.ms / 1000).toFixed(2)} | ${mbs(r, r.cpuMs)} | ${mbs(r, r.splitCpuMs)} | ${mbs(r, r.cpuMs - r.splitCpuMs)} | ${r.heapLimitMb.toFixed(0)} | ${r.startHeapMb.toFixed(0)} / ${r.peakHeapMb.toFixed(0)} | ${r.startRssMb.toFixed(0)} | ${r.splitRssMb.toFixed(0)} | ${r.peakRssMb.toFixed(0)} |`
)
const report = `# /handle-csv pipeline

Command: \`npx tsx benchmarks/csv/run.ts --products ${products} --seed ${seed} --runs ${runs}\` (inputs by \`benchmarks/parsers/generate.ts\`).
Machine: ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}. Run: ${new Date().toISOString()}.
Load average before / after: ${loadBefore} / ${loadAfter} (the machine is shared: figures are pessimistic).

Each run is its own process (\`benchmarks/csv/join.ts\`): the four files are streamed from disk in 64 KiB chunks through
the endpoint's code: \`partitionCsvFile\` (read, header check, split rows by productCode hash into partition files),
then the join (per partition: type the cells, join, validate every product, write the spool) in \`CSV_JOIN_THREADS\` worker threads
(\`spoolJoinedPartitions\`; default 2, as the server) or, with CSV_JOIN_THREADS=0, \`joinedItems\` + \`spoolItems\` in the main thread.
CPU and peak RSS are the whole process's, threads included.
HTTP multipart parsing and publishing to the queue are not included. MB = 10^6 bytes of CSV input. On a shared machine
the wall-clock rate mostly measures the other tenants; MB per CPU-second (user + system time of the run) is the fairer figure.

| run | input MB | products | partitions | MB/s (wall) | seconds (wall) | MB/s per CPU-second | MB/s split (CPU) | MB/s join+validate+spool (CPU) | V8 heap limit (MiB) | heap used at start / peak (MiB) | RSS at start (MiB) | RSS after split (MiB) | peak RSS (MiB) |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rows.join("\n")}
`
writeFileSync(join(here, "results.md"), report)
console.log(report)
