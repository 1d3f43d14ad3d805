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

/** Slope of the least-squares line through the points (y per unit of x); NaN with fewer than two distinct x. */
export const linearSlope = (points: ReadonlyArray<{ readonly x: number; readonly y: number }>): number => {
  const n = points.length
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n
  let covariance = 0
  let variance = 0
  for (const p of points) {
    covariance += (p.x - meanX) * (p.y - meanY)
    variance += (p.x - meanX) ** 2
  }
  return variance === 0 ? Number.NaN : covariance / variance
}
