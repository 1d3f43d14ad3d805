import { once } from "node:events"
import { createServer } from "node:http"

export interface OtlpSink {
  /** The base URL for OTEL_EXPORTER_OTLP_ENDPOINT (spans arrive at `<it>/v1/traces`). */
  readonly url: string
  /** Spans received so far, over every export request. */
  readonly spans: () => number
  /** Trace ids seen so far. */
  readonly traceIds: () => ReadonlySet<string>
  /** The names of the spans received of one trace, in the order they arrived. */
  readonly spanNames: (traceId: string) => ReadonlyArray<string>
  readonly close: () => Promise<void>
}

/** `value[key]` when it is an array, else none. */
const arrayAt = (value: unknown, key: string): ReadonlyArray<unknown> => {
  if (typeof value !== "object" || value === null) return []
  const field: unknown = Reflect.get(value, key)
  return Array.isArray(field) ? field : []
}

const fieldOf = (value: unknown, key: string): unknown => (typeof value === "object" && value !== null ? Reflect.get(value, key) : undefined)

/** An export request's spans (`resourceSpans[].scopeSpans[].spans[]`): their trace ids and names. */
const spansOf = (body: unknown): ReadonlyArray<{ readonly traceId: unknown; readonly name: unknown }> =>
  arrayAt(body, "resourceSpans").flatMap((resource) =>
    arrayAt(resource, "scopeSpans").flatMap((scope) =>
      arrayAt(scope, "spans").map((span) => ({ traceId: fieldOf(span, "traceId"), name: fieldOf(span, "name") }))))

/**
 * A tiny OTLP/HTTP (JSON) receiver on a free port of 127.0.0.1: answers every export with 200 and
 * records the spans in it, so that a benchmark or a test of tracing can tell that spans really left
 * the server (and which, of which trace).
 */
export const startOtlpSink = async (): Promise<OtlpSink> => {
  let spans = 0
  const names = new Map<string, Array<string>>()
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      try {
        for (const { name, traceId } of spansOf(JSON.parse(Buffer.concat(chunks).toString("utf8")))) {
          spans++
          if (typeof traceId !== "string") continue
          const ofTrace = names.get(traceId) ?? []
          ofTrace.push(typeof name === "string" ? name : "")
          names.set(traceId, ofTrace)
        }
      } catch {
        // not JSON: counted as nothing received
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => spans,
    traceIds: () => new Set(names.keys()),
    spanNames: (traceId) => names.get(traceId) ?? [],
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
