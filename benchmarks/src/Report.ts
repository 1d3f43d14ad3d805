import { Schema } from "effect"

const Measured = Schema.Number.check(Schema.isFinite(), Schema.isGreaterThanOrEqualTo(0))

export const Spread = Schema.Struct({
  median: Measured,
  min: Measured,
  max: Measured,
  q1: Measured,
  q3: Measured
})

export const FigureReport = Schema.Struct({
  name: Schema.NonEmptyString,
  unit: Schema.NonEmptyString,
  better: Schema.Literals(["higher", "lower"]),
  samples: Schema.NonEmptyArray(Measured),
  ...Spread.fields,
  limit: Schema.optional(Schema.Struct({
    name: Schema.NonEmptyString,
    samples: Schema.NonEmptyArray(Measured),
    ...Spread.fields
  })),
  /** Median of the figure over median of its limit. */
  ratio: Schema.optional(Measured),
  goal: Schema.optional(Schema.Struct({
    on: Schema.Literals(["median", "ratio"]),
    atLeast: Schema.optional(Schema.Number),
    atMost: Schema.optional(Schema.Number),
    below: Schema.optional(Schema.Number),
    source: Schema.String,
    met: Schema.Boolean
  }))
})
export type FigureReport = typeof FigureReport.Type

export const BenchmarkReport = Schema.Struct({
  name: Schema.NonEmptyString,
  description: Schema.String,
  size: Schema.Number.check(Schema.isGreaterThan(0)),
  sizeUnit: Schema.String,
  runs: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  seconds: Measured,
  notes: Schema.Array(Schema.String),
  figures: Schema.Array(FigureReport),
  /** What the servers under test ran with (database, queue, process), when it is not the report's infrastructure alone; absent in older reports. */
  configuration: Schema.optional(Schema.String),
  /** Set when the benchmark failed; its figures are whatever runs finished before, and what the failed run measured if it says. */
  failure: Schema.optional(Schema.String)
})
export type BenchmarkReport = typeof BenchmarkReport.Type

export const Machine = Schema.Struct({
  cores: Schema.Int.check(Schema.isGreaterThan(0)),
  cpuModel: Schema.String,
  totalMemoryGiB: Measured,
  node: Schema.String,
  platform: Schema.String,
  loadAverageAtStart: Schema.Array(Schema.Number),
  loadAverageAtEnd: Schema.Array(Schema.Number)
})

export const Infrastructure = Schema.Struct({
  /** "embedded PGlite": older reports' name for the in-memory PGlite. */
  database: Schema.Literals(["PostgreSQL (DATABASE_URL)", "embedded PGlite in memory (DATA_DIR=memory://)", "embedded PGlite"]),
  queue: Schema.Literals(["Redis (REDIS_URL)", "in-process"]),
  /** What the servers under test ran (absent in reports from before the bundle). */
  server: Schema.optional(Schema.Literals(["esbuild bundle, as npm start", "tsx on the sources (BENCH_SERVER_RUNTIME=tsx)"]))
})
export type Infrastructure = typeof Infrastructure.Type

export const Report = Schema.Struct({
  label: Schema.String,
  command: Schema.String,
  startedAt: Schema.String,
  finishedAt: Schema.String,
  machine: Machine,
  infrastructure: Infrastructure,
  benchmarks: Schema.Array(BenchmarkReport)
})
export type Report = typeof Report.Type

export const decodeReport = Schema.decodeUnknownResult(Report)
