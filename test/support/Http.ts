import { Effect, Schedule } from "effect"
import { baseUrl, internalBaseUrl } from "./TestServer.ts"

export interface HttpResult {
  readonly status: number
  readonly text: string
  readonly headers: Headers
  readonly json: () => unknown
}

export interface RequestOptions {
  readonly token?: string
  readonly headers?: Record<string, string>
  readonly body?: string | Uint8Array | FormData
  readonly method?: string
}

const send = (path: string, options: RequestOptions) => (base: string) =>
  Effect.promise(async (): Promise<HttpResult> => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.token !== undefined) headers["authorization"] = `Bearer ${options.token}`
    const response = await fetch(`${base}${path}`, {
      method: options.method ?? (options.body === undefined ? "GET" : "POST"),
      headers,
      ...(options.body === undefined ? {} : { body: options.body })
    })
    const text = await response.text()
    return { status: response.status, text, headers: response.headers, json: () => JSON.parse(text) as unknown }
  })

/** A real HTTP request to the test server, as any client would send it. */
export const request = (path: string, options: RequestOptions = {}) => Effect.flatMap(baseUrl, send(path, options))

/** The same, to the internal listener (INTERNAL_PORT). */
export const internalRequest = (path: string, options: RequestOptions = {}) => Effect.flatMap(internalBaseUrl, send(path, options))

export const postJson = (path: string, body: unknown, token?: string) =>
  request(path, {
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
    ...(token === undefined ? {} : { token })
  })

/** Polls until `done` holds, failing the test with the last value after the deadline. */
export const eventually = <A, R>(probe: Effect.Effect<A, never, R>, done: (a: A) => boolean, deadlineMs = 60_000) =>
  probe.pipe(
    Effect.filterOrFail(done, (a) => a),
    Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo({ duration: deadlineMs }))),
    Effect.catch((last) => Effect.die(new Error(`condition not reached within ${deadlineMs} ms; last: ${JSON.stringify(last)}`)))
  )
