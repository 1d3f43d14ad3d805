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

/** Records the requests of one route and method: a counter increment and a histogram observation, series resolved once. */
export type RouteRecorder = (status: number, seconds: number) => void

export const routeRecorder = (route: string, method: string): RouteRecorder => {
  const duration = httpRequestSeconds.series({ route, method })
  const byStatus: Array<CounterSeries | undefined> = []
  return (status, seconds) => {
    let requests = byStatus[status]
    if (requests === undefined) {
      requests = httpRequests.series({ route, method, status: String(status) })
      byStatus[status] = requests
    }
    requests.add(1)
    duration.observe(seconds)
  }
}

export const noRecorder: RouteRecorder = () => undefined
