import { describe, expect, it, layer } from "@effect/vitest"
import { StringLiteralDecoder } from "@retail/service-server"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { request } from "./support/Http.ts"
import { TestServer } from "./support/TestServer.ts"

/** The script effect embeds for HttpApiScalar.layer, imported by file (the subpath is not exported). */
const embeddedScalarScript = Effect.promise(async () => {
  const file = join(dirname(createRequire(import.meta.url).resolve("effect/package.json")), "dist/http-api/internal/httpApiScalar.js")
  const module: { readonly javascript: string } = await import(pathToFileURL(file).href)
  return module.javascript
})

describe("GET /v1/docs: the API reference page renders without the internet", () => {
  layer(TestServer(), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("the page loads Scalar's script from this server, and that script is the installed package's, whole", () =>
      Effect.gen(function*() {
        const page = yield* request("/v1/docs")
        expect(page.status).toBe(200)
        expect(page.headers.get("content-type")).toMatch(/^text\/html/)
        const sources = [...page.text.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((match) => match[1]!)
        expect(sources).toEqual(["docs/scalar.js"])
        expect(page.text).not.toMatch(/jsdelivr|unpkg|fonts\.scalar/)
        expect(page.text).toContain("\"openapi\":\"3.1.0\"")

        const script = yield* request(new URL(sources[0]!, "http://server/v1/docs").pathname)
        expect(script.status).toBe(200)
        expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
        expect(script.text.length).toBeGreaterThan(1_000_000)
        expect(script.text).toBe(yield* embeddedScalarScript)
        expect(script.text).toContain("createApiReference")
      }))
  })
})

describe("StringLiteralDecoder (Scalar's script decoded as it streams)", () => {
  it("decodes a JSON string literal given in pieces of any size, surrogate pairs and escapes split across pieces", () => {
    const value = "a\"b\\c\nd\u2028e😀f</script>é" + "x".repeat(50)
    const file = `/* x */export const javascript=${JSON.stringify(value).replace("😀", "\\ud83d\\ude00")};\n//# tail "quoted"`
    for (const size of [1, 2, 3, 7, 64, file.length]) {
      const decoder = new StringLiteralDecoder()
      const pieces: Array<string> = []
      for (let at = 0; at < file.length && !decoder.done; at += size) pieces.push(decoder.push(file.slice(at, at + size)))
      expect(pieces.every((piece) => Buffer.from(piece, "utf8").toString("utf8") === piece), `size ${size}`).toBe(true)
      expect(pieces.join(""), `size ${size}`).toBe(value)
      expect(decoder.done).toBe(true)
    }
  })

  it("the installed effect's script file is still one such literal", () => {
    const file = join(dirname(createRequire(import.meta.url).resolve("effect/package.json")), "dist/http-api/internal/httpApiScalar.js")
    expect(readFileSync(file, "utf8")).toMatch(/export const javascript="/)
  })
})
