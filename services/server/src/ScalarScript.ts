import { createReadStream } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

/**
 * Scalar's browser script (the API reference page of /v1/docs), as the installed `effect` package
 * ships it: `effect/dist/http-api/internal/httpApiScalar.js` holds the whole script (Scalar's
 * standalone build, 3 MB) as one JSON-style string literal, `export const javascript="..."`.
 * Importing that module would keep the 3 MB string in the heap for the life of the process (and in
 * the bundle), so the file is read from disk when the script is asked for and the literal is decoded
 * as it streams by. The subpath is not in effect's exports, so it is found from effect's
 * package.json; test/openapi.test.ts checks the served script against the module's string.
 */
export const scalarScriptFile = (): string =>
  join(dirname(createRequire(import.meta.url).resolve("effect/package.json")), "dist/http-api/internal/httpApiScalar.js")

const MARKER = "javascript=\""

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  "\"": "\"",
  "\\": "\\",
  "/": "/",
  "'": "'",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "0": "\0"
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff

/** Decodes a double-quoted string literal given in pieces; `push` answers the text decoded so far that is safe to encode. */
export class StringLiteralDecoder {
  private state: "before" | "text" | "escape" | "unicode" | "done" = "before"
  private pending = ""
  private hex = ""
  private held = ""

  get done(): boolean {
    return this.state === "done"
  }

  push(chunk: string): string {
    let out = this.held
    this.held = ""
    let index = 0
    if (this.state === "before") {
      const text = this.pending + chunk
      const at = text.indexOf(MARKER)
      if (at === -1) {
        this.pending = text.slice(-(MARKER.length - 1))
        return ""
      }
      this.pending = ""
      this.state = "text"
      chunk = text
      index = at + MARKER.length
    }
    let runStart = index
    for (; index < chunk.length && this.state !== "done"; index++) {
      const char = chunk[index]!
      switch (this.state) {
        case "text":
          if (char === "\\") {
            out += chunk.slice(runStart, index)
            this.state = "escape"
          } else if (char === "\"") {
            out += chunk.slice(runStart, index)
            this.state = "done"
          }
          break
        case "escape":
          if (char === "u") {
            this.state = "unicode"
            this.hex = ""
          } else {
            const simple = SIMPLE_ESCAPES[char]
            if (simple === undefined) throw new Error(`unexpected escape \\${char} in Scalar's script literal`)
            out += simple
            this.state = "text"
            runStart = index + 1
          }
          break
        case "unicode":
          this.hex += char
          if (this.hex.length === 4) {
            out += String.fromCharCode(Number.parseInt(this.hex, 16))
            this.state = "text"
            runStart = index + 1
          }
          break
      }
    }
    if (this.state === "text") out += chunk.slice(runStart)
    // Half a surrogate pair waits for its other half, so each piece encodes to UTF-8 on its own.
    if (out.length > 0 && isHighSurrogate(out.charCodeAt(out.length - 1)) && this.state !== "done") {
      this.held = out.slice(-1)
      out = out.slice(0, -1)
    }
    return out
  }
}

/** The script's bytes, read from disk in 64 KiB pieces as they are sent. */
export async function* scalarScript(file: string = scalarScriptFile()): AsyncGenerator<Uint8Array> {
  const decoder = new StringLiteralDecoder()
  const input = createReadStream(file, { encoding: "utf8", highWaterMark: 64 * 1024 })
  try {
    for await (const chunk of input) {
      const text = decoder.push(String(chunk))
      if (text.length > 0) yield Buffer.from(text, "utf8")
      if (decoder.done) return
    }
    throw new Error(`Scalar's script literal does not end in ${file}`)
  } finally {
    input.destroy()
  }
}
