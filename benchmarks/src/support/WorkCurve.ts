/**
 * A bare server's time per request after some CPU work per request, relative to its time without
 * work (its requests/s without work over its requests/s with it): 1 without work, rising with it.
 */
export interface WorkPoint {
  readonly workMicros: number
  readonly slowdown: number
}

/**
 * The work per request at which the curve reaches `slowdown`, linear between the two neighbouring
 * points whose rise brackets it (time per request grows about linearly with the work, requests/s
 * does not); the first such pair by work, as a measured curve may wobble. Undefined when no rise
 * between neighbours brackets it.
 */
export const workAt = (curve: ReadonlyArray<WorkPoint>, slowdown: number): number | undefined => {
  const points = [...curve].sort((a, b) => a.workMicros - b.workMicros)
  for (let i = 1; i < points.length; i++) {
    const from = points[i - 1]
    const to = points[i]
    if (from === undefined || to === undefined) continue
    if (from.slowdown <= slowdown && slowdown <= to.slowdown) {
      if (from.slowdown === to.slowdown) return from.workMicros
      return from.workMicros + (to.workMicros - from.workMicros) * (slowdown - from.slowdown) / (to.slowdown - from.slowdown)
    }
  }
  return undefined
}
