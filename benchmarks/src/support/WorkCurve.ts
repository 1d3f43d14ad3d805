/** A bare server's figure (requests/s, or its ratio to the server without work) after some CPU work per request. */
export interface WorkPoint {
  readonly workMicros: number
  readonly value: number
}

/**
 * The work per request at which a falling curve reaches `value`, linear between the two points
 * around it (the first such pair by work: a measured curve may wobble); undefined when `value` is
 * outside the curve (above its first point or below its last), which the curve cannot tell.
 */
export const workAt = (curve: ReadonlyArray<WorkPoint>, value: number): number | undefined => {
  const points = [...curve].sort((a, b) => a.workMicros - b.workMicros)
  for (let i = 1; i < points.length; i++) {
    const from = points[i - 1]
    const to = points[i]
    if (from === undefined || to === undefined) continue
    if (from.value >= value && value >= to.value) {
      if (from.value === to.value) return from.workMicros
      return from.workMicros + (to.workMicros - from.workMicros) * (from.value - value) / (from.value - to.value)
    }
  }
  return undefined
}
