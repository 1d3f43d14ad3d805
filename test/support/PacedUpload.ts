import { Effect } from "effect"
import * as Http from "node:http"

export interface PacedAnswer {
  /** The status, or -1 when the connection was cut before an answer. */
  readonly status: number
  readonly body: string
  readonly contentType?: string
  /** Milliseconds from the first byte sent to the answer (or the cut). */
  readonly ms: number
}

export interface Pace {
  readonly chunkBytes: number
  readonly everyMs: number
  /** Stop sending (without ending the request) once this many bytes were sent. */
  readonly stallAfterBytes?: number
}

/**
 * POSTs `body` over one connection `chunkBytes` at a time every `everyMs`, as a slow client
 * would; with `stallAfterBytes` it then sends nothing more and waits for the server.
 */
export const pacedPost = (url: string, headers: Record<string, string>, body: Uint8Array, pace: Pace) =>
  Effect.callback<PacedAnswer>((resume) => {
    const started = performance.now()
    const request = Http.request(url, {
      method: "POST",
      agent: false,
      headers: { ...headers, "content-length": String(body.length) }
    })
    let sent = 0
    const timer = setInterval(() => {
      const end = Math.min(body.length, sent + pace.chunkBytes, pace.stallAfterBytes ?? body.length)
      if (end > sent) {
        request.write(body.subarray(sent, end))
        sent = end
      }
      if (sent >= body.length) request.end()
      if (sent >= body.length || sent >= (pace.stallAfterBytes ?? Infinity)) clearInterval(timer)
    }, pace.everyMs)
    const done = (status: number, text: string, contentType?: string) => {
      clearInterval(timer)
      resume(Effect.succeed({ status, body: text, ms: performance.now() - started, ...(contentType === undefined ? {} : { contentType }) }))
    }
    request.on("response", (response) => {
      let text = ""
      response.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
      const contentType = response.headers["content-type"]
      response.on("end", () => done(response.statusCode ?? 0, text, contentType))
      response.on("error", () => done(response.statusCode ?? 0, text, contentType))
    })
    request.on("error", () => done(-1, ""))
    return Effect.sync(() => {
      clearInterval(timer)
      request.destroy()
    })
  })

/** A multipart/form-data body of one file part and any text fields before it, and its Content-Type. */
export const multipartBody = (file: { readonly name: string; readonly content: string }, fields: ReadonlyArray<readonly [string, string]> = []) => {
  const boundary = `paced-${crypto.randomUUID()}`
  const text = fields.map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join("") +
    `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.name}.json"\r\nContent-Type: application/json\r\n\r\n` +
    `${file.content}\r\n--${boundary}--\r\n`
  return { body: new TextEncoder().encode(text), contentType: `multipart/form-data; boundary=${boundary}` }
}
