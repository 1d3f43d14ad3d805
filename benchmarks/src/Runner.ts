import { loadavg } from "node:os"
import { type Benchmark, BenchmarkFailure, type Figure, type Goal } from "./Benchmark.ts"
import { infrastructure, machine, suiteConfiguration } from "./Machine.ts"
import type { BenchmarkReport, FigureReport, Report } from "./Report.ts"
import { summarize } from "./Stats.ts"

export interface SuiteOptions {
  readonly scale: "full" | "smoke"
  /** Runs of each benchmark; figures are the median and spread over them. Unset: the benchmark's default (3 unless it says). */
  readonly runs?: number
  /** Overrides each benchmark's default size (used when one benchmark is run alone). */
  readonly size?: number
  readonly label: string
  readonly command: string
  readonly log: (line: string) => void
}

const DEFAULT_RUNS = 3

const errorText = (error: unknown): string =>
  error instanceof Error ? `${error.message}${error.cause === undefined ? "" : ` (cause: ${errorText(error.cause)})`}` : String(error)

/** Samples of the same figure (and of its limit) across runs, in the order figures first appeared. */
const collect = (runs: ReadonlyArray<ReadonlyArray<Figure>>): ReadonlyArray<Figure> => {
  const byName = new Map<string, Figure>()
  for (const figures of runs) {
    for (const f of figures) {
      const seen = byName.get(f.name)
      if (seen === undefined) {
        byName.set(f.name, f)
        continue
      }
      const limit = seen.limit === undefined || f.limit === undefined
        ? seen.limit ?? f.limit
        : { name: seen.limit.name, samples: [...seen.limit.samples, ...f.limit.samples] }
      byName.set(f.name, { ...seen, samples: [...seen.samples, ...f.samples], ...(limit === undefined ? {} : { limit }) })
    }
  }
  return [...byName.values()]
}

const goalMet = (goal: Goal, value: number): boolean =>
  (goal.atLeast === undefined || value >= goal.atLeast) && (goal.atMost === undefined || value <= goal.atMost) &&
  (goal.below === undefined || value < goal.below)

const round = (n: number): number => Math.round(n * 1000) / 1000

const report = (f: Figure): FigureReport | undefined => {
  const [first, ...rest] = f.samples.map(round)
  if (first === undefined) return undefined
  const samples: readonly [number, ...Array<number>] = [first, ...rest]
  const spread = summarize(f.samples)
  const [firstLimit, ...restLimit] = f.limit?.samples.map(round) ?? []
  const limit = f.limit === undefined || firstLimit === undefined
    ? undefined
    : { name: f.limit.name, samples: [firstLimit, ...restLimit] as const, ...summarize(f.limit.samples) }
  const ratio = limit === undefined || limit.median === 0 ? undefined : round(spread.median / limit.median)
  const checked = f.goal === undefined ? undefined : f.goal.on === "median" ? spread.median : ratio
  return {
    name: f.name,
    unit: f.unit,
    better: f.better,
    samples,
    ...spread,
    ...(limit === undefined ? {} : { limit }),
    ...(ratio === undefined ? {} : { ratio }),
    ...(f.goal === undefined ? {} : { goal: { ...f.goal, met: checked !== undefined && goalMet(f.goal, checked) } })
  }
}

const unmeasurable = (figures: ReadonlyArray<Figure>): string | undefined => {
  for (const f of figures) {
    const bad = [...f.samples, ...(f.limit?.samples ?? [])].find((s) => !Number.isFinite(s) || s < 0)
    if (bad !== undefined) return `figure "${f.name}" measured ${bad}, not a finite non-negative number`
  }
  return undefined
}

const runOne = async (benchmark: Benchmark, options: SuiteOptions): Promise<BenchmarkReport> => {
  const size = options.size ?? (options.scale === "smoke" ? benchmark.smokeSize : benchmark.defaultSize)
  const runCount = options.runs ?? benchmark.defaultRuns ?? DEFAULT_RUNS
  const started = performance.now()
  const notes: Array<string> = []
  const runs: Array<ReadonlyArray<Figure>> = []
  const progress = (message: string) => options.log(`[${benchmark.name}] ${message}`)
  let failure: string | undefined
  try {
    progress(`setting up (${size} ${benchmark.sizeUnit})`)
    const session = await benchmark.open({ size, scale: options.scale, progress, note: (text) => notes.push(text) })
    try {
      for (let runIndex = 0; runIndex < runCount; runIndex++) {
        progress(`run ${runIndex + 1}/${runCount}`)
        const figures = await session.run({ size, scale: options.scale, runIndex, progress })
        const bad = unmeasurable(figures)
        if (bad !== undefined) throw new Error(bad)
        runs.push(figures)
      }
    } finally {
      await session.close()
    }
  } catch (error) {
    // A run that failed after measuring (a soak whose end check found a fault) keeps its figures.
    if (error instanceof BenchmarkFailure && error.measured.length > 0 && unmeasurable(error.measured) === undefined) runs.push(error.measured)
    failure = errorText(error)
    progress(`FAILED: ${failure}`)
  }
  const seconds = round((performance.now() - started) / 1000)
  progress(`${failure === undefined ? "done" : "failed"} in ${seconds.toFixed(0)} s`)
  return {
    name: benchmark.name,
    description: benchmark.description,
    size,
    sizeUnit: benchmark.sizeUnit,
    runs: runs.length,
    seconds,
    notes,
    figures: collect(runs).flatMap((f) => report(f) ?? []),
    configuration: benchmark.configuration?.() ?? suiteConfiguration(),
    ...(failure === undefined ? {} : { failure })
  }
}

/** Runs the benchmarks one after the other (never two at once: they would measure each other). */
export const runSuite = async (benchmarks: ReadonlyArray<Benchmark>, options: SuiteOptions): Promise<Report> => {
  const loadAtStart = loadavg().map((l) => Math.round(l * 100) / 100)
  const startedAt = new Date().toISOString()
  const reports: Array<BenchmarkReport> = []
  for (const benchmark of benchmarks) reports.push(await runOne(benchmark, options))
  return {
    label: options.label,
    command: options.command,
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: machine(loadAtStart),
    infrastructure: infrastructure(),
    benchmarks: reports
  }
}

export const failures = (report: Report): ReadonlyArray<string> =>
  report.benchmarks.flatMap((b) => (b.failure === undefined ? [] : [`${b.name}: ${b.failure}`]))
