import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { baseUrl, mintToken, TestServer } from "./support/TestServer.ts"

// Issue 17 point 7: an answer written before the body was read (here a 400 naming a wrong first
// part) announced keep-alive while nothing read the rest of the body; the next request on the
// connection waited 6 s (curl) or got ECONNRESET (fetch).

const PROMPT_MS = 2000
const SIZES = [512 * 1024, 4 * 1024 * 1024] as const

const wrongPartBody = (size: number) => {
  const form = new FormData()
  form.append("wrong", new Blob([new Uint8Array(size).fill(97)]), "wrong.dat")
  return form
}

interface Timed {
  readonly status: number
  readonly ms: number
}

const timedFetch = (url: string, init: RequestInit = {}) =>
  Effect.promise(async (): Promise<Timed> => {
    const started = performance.now()
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) })
      await response.arrayBuffer()
      return { status: response.status, ms: performance.now() - started }
    } catch {
      return { status: -1, ms: performance.now() - started }
    }
  })

/** Runs curl over one connection: the upload, then GET /health twice; returns each transfer's "status connects seconds". */
const curlSequence = (base: string, token: string, file: string) =>
  Effect.promise(() =>
    new Promise<ReadonlyArray<string>>((resolve) => {
      const format = ["-sS", "-o", "/dev/null", "-w", "%{http_code} %{time_total}\\n", "--max-time", "15"]
      execFile("curl", [
        ...format, "-H", `Authorization: Bearer ${token}`, "-F", `wrong=@${file}`, `${base}/v1/handle-json`,
        "--next", ...format, `${base}/health`,
        "--next", ...format, `${base}/health`
      ], (_error, stdout) => resolve(stdout.trim().split("\n")))
    }))

describe("a connection stays usable after an answer written before the request body was read", () => {
  layer(TestServer(), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("curl: after an early 400 on an upload, the next requests on the connection answer at once", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        const token = yield* mintToken({ scope: "products:write", company: "KEEPALIVE" })
        const dir = mkdtempSync(join(tmpdir(), "keepalive-"))
        try {
          for (const size of SIZES) {
            const file = join(dir, `wrong-${size}.dat`)
            writeFileSync(file, Buffer.alloc(size, 97))
            const lines = yield* curlSequence(base, token, file)
            const answers = lines.map((line) => {
              const [status, seconds] = line.split(" ")
              return { status: Number(status), prompt: Number(seconds) * 1000 < PROMPT_MS }
            })
            expect({ size, answers }).toEqual({ size, answers: [{ status: 400, prompt: true }, { status: 200, prompt: true }, { status: 200, prompt: true }] })
          }
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      }))

    it.effect("fetch (undici keep-alive): uploads answered 400 early alternate with other requests, each answered at once", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        const token = yield* mintToken({ scope: "products:write", company: "KEEPALIVE" })
        const answers: Array<{ readonly what: string; readonly status: number; readonly prompt: boolean }> = []
        for (let round = 0; round < 3; round++) {
          for (const size of SIZES) {
            const upload = yield* timedFetch(`${base}/v1/handle-json`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: wrongPartBody(size) })
            answers.push({ what: `upload ${size}`, status: upload.status, prompt: upload.ms < PROMPT_MS })
            const health = yield* timedFetch(`${base}/health`)
            answers.push({ what: "health", status: health.status, prompt: health.ms < PROMPT_MS })
          }
        }
        expect(answers).toEqual(answers.map(({ what }) => ({ what, status: what === "health" ? 200 : 400, prompt: true })))
      }))
  })
})
