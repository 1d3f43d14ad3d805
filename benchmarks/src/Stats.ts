/** Quantile by linear interpolation between closest ranks (the "R-7" rule of most spreadsheets). */
export const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  if (sorted.length === 0) return Number.NaN
  const position = (sorted.length - 1) * q
  const low = Math.floor(position)
  const high = Math.ceil(position)
  const a = sorted[low] ?? Number.NaN
  const b = sorted[high] ?? Number.NaN
  return a + (b - a) * (position - low)
}

export interface Summary {
  readonly median: number
  readonly min: number
  readonly max: number
  readonly q1: number
  readonly q3: number
}

export const summarize = (values: ReadonlyArray<number>): Summary => ({
  median: quantile(values, 0.5),
  min: Math.min(...values),
  max: Math.max(...values),
  q1: quantile(values, 0.25),
  q3: quantile(values, 0.75)
})
