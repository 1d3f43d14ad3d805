import { counter, type CounterSeries, histogram, LATENCY_SECONDS } from "./Families.ts"

export const httpRequests = counter("http_requests_total", "HTTP requests answered, by route (the contract's path), method and status", [
  "route",
  "method",
  "status"
])

export const httpRequestSeconds = histogram(
  "http_request_duration_seconds",
  "Time from the request reaching the server to its response being handed to node (its body may still be streaming)",
  LATENCY_SECONDS,
  ["route", "method"]
)

export const fileBytesRead = counter(
  "upload_file_bytes_read_total",
  "Bytes read from the connection for the file endpoints (multipart framing included), by endpoint",
  ["endpoint"]
)

/**
 * Records a request of one route and method answered with `status`, from `startedAt` to `endedAt`
 * (`performance.now()` readings): a counter increment and a histogram observation, series resolved once.
 */
export type RouteRecorder = (status: number, startedAt: number, endedAt: number) => void

export const routeRecorder = (route: string, method: string): RouteRecorder => {
  const duration = httpRequestSeconds.series({ route, method })
  const byStatus: Array<CounterSeries | undefined> = []
  return (status, startedAt, endedAt) => {
    let requests = byStatus[status]
    if (requests === undefined) {
      requests = httpRequests.series({ route, method, status: String(status) })
      byStatus[status] = requests
    }
    requests.add(1)
    duration.observe((endedAt - startedAt) / 1000)
  }
}

export const noRecorder: RouteRecorder = () => undefined

/** `performance.now()` when metrics are on; a constant when they are off, so that a disabled hot path reads no clock. */
export const metricsClock = (enabled: boolean): () => number => (enabled ? () => performance.now() : () => 0)
