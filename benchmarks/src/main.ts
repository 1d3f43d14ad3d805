// npm run bench -- [<benchmark>] [--size N] [--runs N] [--smoke] [--label TEXT]  (see benchmarks/README.md)
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Result } from "effect"
import { parseArgs, USAGE } from "./Cli.ts"
import { toMarkdown } from "./Markdown.ts"
import { decodeReport } from "./Report.ts"
import { failures, runSuite } from "./Runner.ts"
import { allBenchmarks, benchmarks } from "./suite/index.ts"
import { killStartedServers } from "./support/ServerProcess.ts"

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    killStartedServers()
    process.exit(130)
  })
}

const resultsDir = fileURLToPath(new URL("../results/", import.meta.url))
const fail = (message: string, code: number): never => {
  console.error(message)
  process.exit(code)
}

const main = async () => {
  const args = process.argv.slice(2)
  const names = allBenchmarks.map((b) => b.name).join(", ")
  const options = Result.getOrElse(parseArgs(args), (message) => fail(`${message}\n${USAGE}\nbenchmarks: ${names}`, 2))
  const selected = options.name === undefined ? benchmarks : allBenchmarks.filter((b) => b.name === options.name)
  if (selected.length === 0) fail(`no benchmark named ${options.name ?? ""}; benchmarks: ${names}`, 2)

  const report = await runSuite(selected, {
    scale: options.smoke ? "smoke" : "full",
    ...(options.runs === undefined ? {} : { runs: options.runs }),
    ...(options.size === undefined ? {} : { size: options.size }),
    label: options.label,
    command: ["npm run bench", ...(args.length > 0 ? ["--", ...args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a))] : [])].join(" "),
    log: (line) => console.error(`${new Date().toISOString().slice(11, 19)} ${line}`)
  })
  const checked = decodeReport(report)
  if (Result.isFailure(checked)) fail(`the report does not match its schema: ${checked.failure.message}`, 1)

  // A whole-suite run is the report of record; one benchmark alone writes beside it.
  const base = options.name === undefined && !options.smoke ? "latest" : `latest-${options.name ?? "all"}${options.smoke ? "-smoke" : ""}`
  mkdirSync(resultsDir, { recursive: true })
  writeFileSync(join(resultsDir, `${base}.json`), JSON.stringify(report, null, 2) + "\n")
  writeFileSync(join(resultsDir, `${base}.md`), toMarkdown(report))
  console.error(`wrote benchmarks/results/${base}.json and ${base}.md`)
  const failed = failures(report)
  if (failed.length > 0) fail(`${failed.length} benchmark(s) failed:\n${failed.map((f) => `  - ${f}`).join("\n")}`, 1)
}

main().catch((error: unknown) => fail(`benchmark run crashed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`, 1))
