import type { FigureReport, Report } from "./Report.ts"

const num = (n: number): string =>
  n >= 1000 ? Math.round(n).toLocaleString("en-US") : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n >= 1 ? n.toFixed(2) : n.toFixed(3)

const spread = (s: { readonly min: number; readonly max: number; readonly q1: number; readonly q3: number }, runs: number): string =>
  runs >= 4 ? `IQR ${num(s.q1)}-${num(s.q3)}` : `${num(s.min)}-${num(s.max)}`

const goalText = (f: FigureReport): string => {
  if (f.goal === undefined) return ""
  const bound = [
    f.goal.atLeast === undefined ? "" : `>= ${f.goal.atLeast}`,
    f.goal.atMost === undefined ? "" : `<= ${f.goal.atMost}`,
    f.goal.below === undefined ? "" : `< ${f.goal.below}`
  ].filter((s) => s !== "").join(" and ")
  return `${f.goal.met ? "met" : "**not met**"}: ${f.goal.on === "ratio" ? "ratio " : ""}${bound} (${f.goal.source})`
}

const row = (f: FigureReport): string =>
  [
    f.name,
    f.unit,
    `**${num(f.median)}**`,
    spread(f, f.samples.length),
    f.limit === undefined ? "" : f.limit.name,
    f.limit === undefined ? "" : `${num(f.limit.median)} (${spread(f.limit, f.limit.samples.length)})`,
    f.ratio === undefined ? "" : `${f.ratio.toFixed(2)}x`,
    goalText(f)
  ].join(" | ")

/** The human report: one table per benchmark, each figure beside its limit from the same runs. */
export const toMarkdown = (report: Report): string => {
  const m = report.machine
  const lines = [
    "# Benchmark report",
    "",
    ...(report.label === "" ? [] : [`> ${report.label}`, ""]),
    `Command: \`${report.command}\``,
    "",
    `Run ${report.startedAt} to ${report.finishedAt}. Machine: ${m.cores} cores (${m.cpuModel}), ${m.totalMemoryGiB} GiB RAM, Node ${m.node}, ${m.platform}; load average ${m.loadAverageAtStart.join(", ")} at the start, ${m.loadAverageAtEnd.join(", ")} at the end.`,
    `Infrastructure (the runner's; a benchmark whose servers run otherwise says so in its Configuration line): database ${report.infrastructure.database}, queue ${report.infrastructure.queue}${report.infrastructure.server === undefined ? "" : `; servers under test: ${report.infrastructure.server}`}.`,
    "",
    "Each figure is the median of its runs with its spread (min-max, or the interquartile range from 4 runs on); its limit",
    "was measured in the same runs, and the ratio is figure median / limit median (for latency and memory, lower is better).",
    ""
  ]
  for (const b of report.benchmarks) {
    lines.push(`## ${b.name}`, "", `${b.description} Size: ${b.size} ${b.sizeUnit}; ${b.runs} run(s), ${b.seconds.toFixed(0)} s.`, "")
    if (b.configuration !== undefined) lines.push(`Configuration: ${b.configuration}.`, "")
    if (b.failure !== undefined) lines.push(`**FAILED**: ${b.failure}`, "")
    for (const note of b.notes) lines.push(`- ${note}`)
    if (b.notes.length > 0) lines.push("")
    if (b.figures.length > 0) {
      lines.push("| figure | unit | median | spread | limit (same run) | limit median | ratio | goal |", "|---|---|---:|---|---|---:|---:|---|")
      for (const f of b.figures) lines.push(`| ${row(f)} |`)
      lines.push("")
    }
  }
  return lines.join("\n")
}
