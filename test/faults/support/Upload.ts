import { Effect } from "effect"
import { request } from "node:http"
import { waitUntil } from "./Processes.ts"
import { loadsOf } from "./Store.ts"

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
  Effect.callback<UploadOutcome>((resume) => {
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

export const fileOf = (products: ReadonlyArray<unknown>) => JSON.stringify({ products })

/**
 * Sends `products` as one /handle-json file in the background and waits until its load is recorded:
 * the file was read whole and the load is being published from now on.
 */
export const publishingFileLoad = (options: {
  readonly base: string
  readonly postgresUrl: string
  readonly company: string
  readonly bearer: string
  readonly products: ReadonlyArray<unknown>
}) =>
  Effect.gen(function*() {
    const upload = yield* Effect.forkChild(streamUpload({
      url: `${options.base}/v1/handle-json`,
      bearer: options.bearer,
      part: "productsJson",
      content: fileOf(options.products),
      chunks: 1,
      pauseMs: 0
    }))
    const [load] = yield* waitUntil("publishing started", Effect.flatMap(loadsOf(options.postgresUrl, options.company), (rows) =>
      rows.length > 0 ? Effect.succeed(rows) : Effect.fail(new Error("no load yet"))), "120 seconds")
    if (load === undefined) return yield* Effect.die(new Error("no load recorded"))
    return { upload, load } as const
  })
