import { linearSlope } from "../Stats.ts"
import type { watchRss } from "../support/Rss.ts"

export interface RssPoint {
  /** Seconds since sampling began. */
  readonly seconds: number
  readonly mib: number
}

/** The server's RSS every `everyMs` from now on, for its level at given moments and its trend. */
export const sampleRss = (rss: ReturnType<typeof watchRss>, everyMs: number) => {
  const start = performance.now()
  const points: Array<RssPoint> = []
  const sample = () => points.push({ seconds: (performance.now() - start) / 1000, mib: rss.currentMiB() })
  sample()
  const timer = setInterval(sample, everyMs)
  return {
    points: (): ReadonlyArray<RssPoint> => points,
    /** The first sample at or after `seconds` (the last one when there is none). */
    at: (seconds: number): number => (points.find((p) => p.seconds >= seconds) ?? points[points.length - 1])?.mib ?? 0,
    /** MiB per minute of the least-squares line through the samples between two moments. */
    slopePerMinute: (fromSeconds: number, toSeconds: number): number =>
      linearSlope(points.filter((p) => p.seconds >= fromSeconds && p.seconds <= toSeconds).map((p) => ({ x: p.seconds / 60, y: p.mib }))),
    stop: (): void => {
      sample()
      clearInterval(timer)
    }
  }
}
