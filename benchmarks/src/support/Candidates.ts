import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Result, Schema } from "effect"
import { BenchmarkFailure } from "../Benchmark.ts"
import { runToEnd } from "./ChildProcess.ts"

const CANDIDATES = fileURLToPath(new URL("../../parsers/candidates.ts", import.meta.url))

export const Measure = Schema.Struct({
  name: Schema.String,
  bytes: Schema.Number,
  items: Schema.Number,
  ms: Schema.Number,
  startRssMb: Schema.Number,
  peakRssMb: Schema.Number
})
export type Measure = typeof Measure.Type
const decodeMeasure = Schema.decodeUnknownResult(Schema.fromJsonString(Measure))

/** One parser candidate of benchmarks/parsers/candidates.ts over `files`, in its own process (its own peak RSS). */
export const measureCandidate = async (name: string, files: ReadonlyArray<string>): Promise<Measure> => {
  const { stdout } = await runToEnd(process.execPath, ["--import", "tsx", CANDIDATES, name, ...files], `parser candidate ${name}`)
  const line = stdout.trim().split("\n").pop() ?? ""
  return Result.getOrElse(decodeMeasure(line), (error) => {
    throw new BenchmarkFailure(`parser candidate ${name} printed no measure: ${error.message.slice(0, 200)}`)
  })
}

export const megabytesPerSecond = (m: Measure): number => m.bytes / 1e6 / (m.ms / 1000)
export const itemsPerSecond = (m: Measure): number => m.items / (m.ms / 1000)

export const repositoryFile = (...segments: ReadonlyArray<string>): string => join(fileURLToPath(new URL("../../../", import.meta.url)), ...segments)
