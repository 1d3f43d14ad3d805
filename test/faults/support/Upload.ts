import { Effect } from "effect"
import { request } from "node:http"

export interface UploadOutcome {
  readonly status: number | null
  readonly body: string
  /** Set when the connection ended without a complete answer. */
  readonly error: string | null
}

/**
 * A multipart/form-data upload of one file part, written in `chunks` with a pause after each,
 * over a raw node:http request so that the test controls the pace and sees a cut connection.
 * `onChunk(i)` runs after chunk i was written.
 */
export const streamUpload = (options: {
  readonly url: string
  readonly bearer: string
  readonly part: string
  readonly content: string
  readonly chunks: number
  readonly pauseMs: number
  readonly onChunk?: (index: number) => Promise<void>
}) =>
  Effect.async<UploadOutcome>((resume) => {
    const boundary = `----fault-suite-${crypto.randomUUID()}`
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${options.part}"; filename="products.json"\r\n` +
        `Content-Type: application/json\r\n\r\n`
    )
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
    const body = Buffer.from(options.content)
    const req = request(options.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${options.bearer}`,
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": String(head.length + body.length + tail.length)
      }
    })
    let settled = false
    const settle = (outcome: UploadOutcome) => {
      if (settled) return
      settled = true
      resume(Effect.succeed(outcome))
    }
    req.on("response", (response) => {
      const parts: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => parts.push(chunk))
      response.on("end", () => settle({ status: response.statusCode ?? null, body: Buffer.concat(parts).toString(), error: null }))
      response.on("error", (error) => settle({ status: response.statusCode ?? null, body: Buffer.concat(parts).toString(), error: error.message }))
    })
    req.on("error", (error) => settle({ status: null, body: "", error: error.message }))
    const size = Math.ceil(body.length / options.chunks)
    const write = async () => {
      req.write(head)
      for (let i = 0; i < options.chunks; i++) {
        if (req.destroyed) return
        req.write(body.subarray(i * size, (i + 1) * size))
        await options.onChunk?.(i)
        await new Promise((resolve) => setTimeout(resolve, options.pauseMs))
      }
      if (!req.destroyed) req.end(tail)
    }
    write().catch((error: unknown) => settle({ status: null, body: "", error: String(error) }))
  })
