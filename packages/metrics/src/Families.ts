import { Context, Effect, type Exit, Metric } from "effect"

/**
 * Every series lives in Effect's default metric registry (the `MetricRegistry` reference's default,
 * one per process), which PrometheusMetrics formats. Updates go through this empty context so that
 * code outside a fiber (the capacity fast lane, node callbacks) and code inside one address the
 * same series: nothing in the server provides a registry of its own.
 */
export const registryContext: Context.Context<never> = Context.empty()

export type Labels<L extends string> = { readonly [K in L]: string }

/**
 * One update of a series, as a thread that has no /metrics of its own sends it to the thread that
 * serves them (the batch workers' thread, services/server PersistThread.ts): the family's name, the
 * series' labels, what was done and the amount.
 */
export type MetricUpdate = readonly [op: "add" | "observe" | "set" | "modify", name: string, labels: Readonly<Record<string, string>>, value: number]

/** Set in a thread whose updates go to another thread's registry: every family update goes there instead of this thread's registry. */
let forwardTo: ((update: MetricUpdate) => void) | undefined

/** Sends every later update of every family to `sink` instead of this thread's registry (undefined: back to the registry). */
export const forwardMetricUpdates = (sink: ((update: MetricUpdate) => void) | undefined): void => {
  forwardTo = sink
}

/** How a family applies an update to its own series, by the family's name. */
const appliers = new Map<string, (labels: Readonly<Record<string, string>>, op: MetricUpdate[0], value: number) => void>()

/** Applies an update another thread forwarded (see forwardMetricUpdates); one of a family this thread does not know is dropped. */
export const applyMetricUpdate = ([op, name, labels, value]: MetricUpdate): void => {
  appliers.get(name)?.(labels, op, value)
}

const keyOf = (names: ReadonlyArray<string>, labels: Readonly<Record<string, string>>) =>
  names.length === 1 ? labels[names[0] ?? ""] ?? "" : names.map((name) => labels[name] ?? "").join("\u0000")

/** One Effect metric per label set, made on first use and kept: label values must be few (routes, sources, states). */
const family = <L extends string, M>(labelNames: ReadonlyArray<L>, make: (labels: Labels<L>) => M) => {
  const series = new Map<string, M>()
  return (labels: Labels<L>): M => {
    const key = keyOf(labelNames, labels)
    let metric = series.get(key)
    if (metric === undefined) {
      metric = make(labels)
      series.set(key, metric)
    }
    return metric
  }
}

export interface CounterSeries {
  readonly add: (amount?: number) => void
}

export interface HistogramSeries {
  readonly observe: (value: number) => void
}

export interface GaugeSeries {
  readonly set: (value: number) => void
  readonly add: (amount: number) => void
}

export interface CounterFamily<L extends string> {
  readonly series: (labels: Labels<L>) => CounterSeries
  readonly add: (labels: Labels<L>, amount?: number) => void
}

export interface HistogramFamily<L extends string> {
  readonly series: (labels: Labels<L>) => HistogramSeries
  readonly observe: (labels: Labels<L>, value: number) => void
}

export interface GaugeFamily<L extends string> {
  readonly series: (labels: Labels<L>) => GaugeSeries
  readonly set: (labels: Labels<L>, value: number) => void
}

export const counter = <L extends string = never>(
  name: string,
  description: string,
  labelNames: ReadonlyArray<L> = []
): CounterFamily<L> => {
  const series = family(labelNames, (labels): CounterSeries => {
    const metric = Metric.counter(name, { description, attributes: labels, incremental: true })
    return {
      add: (amount = 1) => forwardTo === undefined ? metric.updateUnsafe(amount, registryContext) : forwardTo(["add", name, labels, amount])
    }
  })
  appliers.set(name, (labels, _op, value) => series(labels as Labels<L>).add(value))
  return { series, add: (labels, amount) => series(labels).add(amount) }
}

export const histogram = <L extends string = never>(
  name: string,
  description: string,
  boundaries: ReadonlyArray<number>,
  labelNames: ReadonlyArray<L> = []
): HistogramFamily<L> => {
  const series = family(labelNames, (labels): HistogramSeries => {
    const metric = Metric.histogram(name, { description, attributes: labels, boundaries })
    return {
      observe: (value) => forwardTo === undefined ? metric.updateUnsafe(value, registryContext) : forwardTo(["observe", name, labels, value])
    }
  })
  appliers.set(name, (labels, _op, value) => series(labels as Labels<L>).observe(value))
  return { series, observe: (labels, value) => series(labels).observe(value) }
}

export const gauge = <L extends string = never>(
  name: string,
  description: string,
  labelNames: ReadonlyArray<L> = []
): GaugeFamily<L> => {
  const series = family(labelNames, (labels): GaugeSeries => {
    const metric = Metric.gauge(name, { description, attributes: labels })
    return {
      set: (value) => forwardTo === undefined ? metric.updateUnsafe(value, registryContext) : forwardTo(["set", name, labels, value]),
      add: (amount) => forwardTo === undefined ? metric.modifyUnsafe(amount, registryContext) : forwardTo(["modify", name, labels, amount])
    }
  })
  appliers.set(name, (labels, op, value) => {
    const gaugeSeries = series(labels as Labels<L>)
    if (op === "set") gaugeSeries.set(value)
    else gaugeSeries.add(value)
  })
  return { series, set: (labels, value) => series(labels).set(value) }
}

/** A counter whose value is read when scraped (a total kept elsewhere, by code that knows nothing of metrics). */
export const counterReadOnScrape = (name: string, description: string, read: () => number, labels: Readonly<Record<string, string>> = {}) =>
  Metric.registerUnsafe(Metric.counter(name, { description, attributes: labels }), registryContext, {
    get: () => ({ count: read(), incremental: true }),
    update: () => undefined,
    modify: () => undefined
  })

/** A gauge whose value is read when scraped. */
export const gaugeReadOnScrape = (name: string, description: string, read: () => number, labels: Readonly<Record<string, string>> = {}) =>
  Metric.registerUnsafe(Metric.gauge(name, { description, attributes: labels }), registryContext, {
    get: () => ({ value: read() }),
    update: () => undefined,
    modify: () => undefined
  })

/** Seconds: latency buckets from 0.5 ms to 30 s. */
export const LATENCY_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

/** Seconds: durations of whole loads, from 10 ms to 30 min. */
export const LOAD_SECONDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800]

/** Seconds: the engine's time for one request, from 10 µs to 100 ms. */
export const ENGINE_SECONDS = [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1]

/** Runs `effect` and gives its duration in seconds to `observe`, whatever its outcome. */
export const timedSeconds = <A, E, R>(effect: Effect.Effect<A, E, R>, observe: (seconds: number, exit: Exit.Exit<A, E>) => void) =>
  Effect.suspend(() => {
    const started = performance.now()
    return Effect.onExit(effect, (exit) => Effect.sync(() => observe((performance.now() - started) / 1000, exit)))
  })
