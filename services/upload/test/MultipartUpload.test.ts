import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { UploadConfig } from "@retail/service-upload"
import { Duration, Effect, Layer, Stream } from "effect"
import { HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as Http from "node:http"
import { setTimeout as sleep } from "node:timers/promises"
import { readMultipart } from "../src/multipart/MultipartUpload.ts"

const UNTERMINATED_AFTER = Duration.millis(300)
/** What the file handler does after it has read its part: longer than UNTERMINATED_AFTER. */
const HANDLER_WORK_MS = 1_200

/**
 * A server whose one route reads a multipart body with a slow file handler: one that goes on
 * working (validating, publishing) well after the raw body has ended.
 */
const SlowReader = HttpServer.serve(
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    let bytes = 0
    return yield* readMultipart(request, 1024 * 1024, {
      file: (content) =>
        Stream.runForEach(content, (chunk) => Effect.sync(() => void (bytes += chunk.length))).pipe(
          Effect.andThen(Effect.promise(() => sleep(HANDLER_WORK_MS)))
        )
    }, { unterminatedAfter: UNTERMINATED_AFTER }).pipe(
      Effect.map(({ handled }) => HttpServerResponse.jsonUnsafe({ handled: [...handled], bytes })),
      Effect.catch((error) => Effect.succeed(HttpServerResponse.jsonUnsafe({ message: error.message }, { status: 400 })))
    )
  })
).pipe(
  Layer.provideMerge(NodeHttpServer.layer(() => Http.createServer(), { port: 0, host: "127.0.0.1" })),
  Layer.provide(UploadConfig.test())
)

const post = (body: string) =>
  Effect.flatMap(HttpServer.HttpServer, (server) =>
    Effect.promise(() =>
      new Promise<{ readonly status: number; readonly body: unknown; readonly millis: number }>((resolve, reject) => {
        const address = server.address
        if (address._tag === "UnixPathAddress") return reject(new Error("not a TCP server"))
        const started = performance.now()
        const req = Http.request({
          host: "127.0.0.1",
          port: address.port,
          path: "/",
          method: "POST",
          agent: false,
          headers: { "content-type": "multipart/form-data; boundary=b", "content-length": Buffer.byteLength(body) }
        }, (response) => {
          let text = ""
          response.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text), millis: performance.now() - started }))
        })
        req.on("error", reject)
        req.end(body)
      })
    ))

const filePart = (content: string) => `--b\r\nContent-Disposition: form-data; name="file"; filename="f.json"\r\n\r\n${content}`

describe("readMultipart", () => {
  layer(SlowReader, { timeout: 30_000 })((it) => {
    it.effect("reads a whole body however long its handler works after the body has ended", () =>
      Effect.gen(function*() {
        const content = "x".repeat(200_000)
        const answer = yield* post(`${filePart(content)}\r\n--b--\r\n`)
        expect(answer).toMatchObject({ status: 200, body: { handled: ["file"], bytes: content.length } })
        expect(answer.millis).toBeGreaterThanOrEqual(HANDLER_WORK_MS)
      }))

    it.effect("refuses a body that ends before its closing boundary: empty, a boundary alone, cut in a file part", () =>
      Effect.gen(function*() {
        for (const body of ["", "--b\r\n", filePart("[1,2")]) {
          const answer = yield* post(body)
          expect(answer, JSON.stringify(body)).toMatchObject({
            status: 400,
            body: { message: "The multipart/form-data body ends before its closing boundary" }
          })
        }
      }))
  })
})
