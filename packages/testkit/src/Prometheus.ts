import parsePrometheusTextFormat, { type PrometheusFamily, type PrometheusSample } from "parse-prometheus-text-format"

/**
 * One scrape of /metrics, parsed by a Prometheus text-format parser. The parser folds a histogram's
 * series into one and drops their labels (it expects histograms without labels), so the text is
 * parsed twice: as it is, for the families and their types; and with histograms declared untyped,
 * for each `_bucket`, `_sum` and `_count` series with its labels.
 */
export class Scrape {
  readonly families: ReadonlyArray<PrometheusFamily>
  private readonly series: ReadonlyArray<PrometheusFamily>

  constructor(readonly text: string) {
    this.families = parsePrometheusTextFormat(text)
    this.series = parsePrometheusTextFormat(text.replace(/^# TYPE (\S+) histogram$/gm, "# TYPE $1 untyped"))
  }

  family(name: string): PrometheusFamily | undefined {
    return this.families.find((family) => family.name === name)
  }

  private samples(name: string, labels: Readonly<Record<string, string>>): ReadonlyArray<PrometheusSample> {
    return this.series
      .filter((family) => family.name === name)
      .flatMap((family) => family.metrics)
      .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value))
  }

  /** The sum of the values of the series holding `labels` (a histogram's: its counts); 0 when there is none. */
  value(name: string, labels: Readonly<Record<string, string>> = {}): number {
    const series = this.family(name)?.type === "HISTOGRAM" ? `${name}_count` : name
    return this.samples(series, labels).reduce((total, sample) => total + Number(sample.value ?? "0"), 0)
  }

  /** A histogram's sum over the series holding `labels`. */
  sum(name: string, labels: Readonly<Record<string, string>> = {}): number {
    return this.samples(`${name}_sum`, labels).reduce((total, sample) => total + Number(sample.value ?? "0"), 0)
  }
}
