declare module "parse-prometheus-text-format" {
  export interface PrometheusSample {
    readonly labels?: Readonly<Record<string, string>>
    /** Counters, gauges, untyped. */
    readonly value?: string
    /** Histograms and summaries. */
    readonly buckets?: Readonly<Record<string, string>>
    readonly quantiles?: Readonly<Record<string, string>>
    readonly count?: string
    readonly sum?: string
  }
  export interface PrometheusFamily {
    readonly name: string
    readonly help: string
    readonly type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED"
    readonly metrics: ReadonlyArray<PrometheusSample>
  }
  const parsePrometheusTextFormat: (text: string) => ReadonlyArray<PrometheusFamily>
  export default parsePrometheusTextFormat
}
