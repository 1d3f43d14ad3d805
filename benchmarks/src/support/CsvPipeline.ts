import { fileURLToPath } from "node:url"
import { Result, Schema } from "effect"
import { BenchmarkFailure } from "../Benchmark.ts"
import { runToEnd } from "./ChildProcess.ts"

const PIPELINE = fileURLToPath(new URL("../../csv/join.ts", import.meta.url))

const PipelineRun = Schema.Struct({
  bytes: Schema.Number,
  products: Schema.Number,
  accepted: Schema.Number,
  failed: Schema.Number,
  ms: Schema.Number,
  cpuMs: Schema.Number,
  peakRssMb: Schema.Number
})
export type PipelineRun = typeof PipelineRun.Type
const decodeRun = Schema.decodeUnknownResult(Schema.fromJsonString(PipelineRun))

/**
 * /handle-csv's own code without HTTP, multipart or publishing (benchmarks/csv/join.ts, in its own
 * process): split into partitions, join, validate, spool. Every product must be accepted.
 */
export const measureCsvPipeline = async (files: ReadonlyArray<string>, products: number): Promise<PipelineRun> => {
  const { stdout } = await runToEnd(process.execPath, ["--import", "tsx", PIPELINE, ...files], "the in-process /handle-csv pipeline")
  const line = stdout.trim().split("\n").pop() ?? ""
  const run = Result.getOrElse(decodeRun(line), (error) => {
    throw new BenchmarkFailure(`the in-process /handle-csv pipeline printed no result: ${error.message.slice(0, 200)}`)
  })
  if (run.accepted !== products || run.failed !== 0) {
    throw new BenchmarkFailure(`the in-process /handle-csv pipeline accepted ${run.accepted} and failed ${run.failed} of ${products} products`)
  }
  return run
}
