/** What one run of a benchmark measures: samples of a figure and, beside it, the limit measured in the same run. */
export interface Figure {
  readonly name: string
  readonly unit: string
  readonly samples: ReadonlyArray<number>
  /** Which way is better; throughput figures are "higher", latency and memory "lower". */
  readonly better: "higher" | "lower"
  readonly limit?: { readonly name: string; readonly samples: ReadonlyArray<number> }
  /** A target from the issues, checked on the median (or on the ratio to the limit). */
  readonly goal?: Goal
}

export interface Goal {
  readonly on: "median" | "ratio"
  readonly atLeast?: number
  readonly atMost?: number
  /** Strictly below: a goal the issue writes `< x` (latencies are whole milliseconds, so 20 is not under 20). */
  readonly below?: number
  readonly source: string
}

export interface RunContext {
  readonly size: number
  /** "smoke": seconds-long, tiny inputs, for the test command; durations and repetitions shrink with it. */
  readonly scale: "full" | "smoke"
  readonly runIndex: number
  readonly progress: (message: string) => void
}

export interface SetupContext {
  readonly size: number
  readonly scale: "full" | "smoke"
  readonly progress: (message: string) => void
  /** Remarks for the report (what was embedded, what was skipped and why). */
  readonly note: (text: string) => void
}

/** A benchmark once set up (servers started, inputs generated): run it several times, then close it. */
export interface Session {
  readonly run: (ctx: RunContext) => Promise<ReadonlyArray<Figure>>
  readonly close: () => Promise<void>
}

export interface Benchmark {
  readonly name: string
  readonly description: string
  /** What `--size` counts for this benchmark. */
  readonly sizeUnit: string
  readonly defaultSize: number
  readonly smokeSize: number
  /** Runs when the command does not say (`--runs`); 3 unless set (a soak of minutes runs once). */
  readonly defaultRuns?: number
  /** What its servers run with, for the report; unset: the runner's infrastructure (`suiteConfiguration`). */
  readonly configuration?: () => string
  readonly open: (ctx: SetupContext) => Promise<Session>
}

/**
 * A benchmark that could not measure what it promised; the command exits non-zero. `measured`: what
 * a run did measure before it found the fault (a soak that lost products still reports its rates).
 */
export class BenchmarkFailure extends Error {
  override readonly name = "BenchmarkFailure"
  constructor(message: string, readonly measured: ReadonlyArray<Figure> = []) {
    super(message)
  }
}

export const figure = (
  name: string,
  unit: string,
  sample: number,
  options: { readonly better?: "higher" | "lower"; readonly limit?: { readonly name: string; readonly sample: number }; readonly goal?: Goal } = {}
): Figure => ({
  name,
  unit,
  samples: [sample],
  better: options.better ?? "higher",
  ...(options.limit === undefined ? {} : { limit: { name: options.limit.name, samples: [options.limit.sample] } }),
  ...(options.goal === undefined ? {} : { goal: options.goal })
})
