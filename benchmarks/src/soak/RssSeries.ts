import { linearSlope } from "../Stats.ts"
import type { watchRss } from "../support/Rss.ts"

export interface RssPoint {
  /** Seconds since sampling began. */
  readonly seconds: number
  readonly mib: number
}

/** The server's RSS every `everyMs` from now on, for its level at given moments and its trend. */
export const sampleRss = (rss: ReturnType<typeof watchRss>, everyMs: number, progress: (message: string) => void) => {
  const start = performance.now()
  const points: Array<RssPoint> = []
  const sample = () => {
    const point = { seconds: (performance.now() - start) / 1000, mib: rss.currentMiB() }
    if (Math.floor(point.seconds / 30) > Math.floor((points[points.length - 1]?.seconds ?? 0) / 30)) progress(`${point.seconds.toFixed(0)} s: server RSS ${point.mib.toFixed(0)} MiB`)
    points.push(point)
  }
  sample()
  const timer = setInterval(sample, everyMs)
  timer.unref()
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
