import { createReadStream, statSync } from "node:fs"
import { request } from "node:http"
import { basename } from "node:path"
import { BenchmarkFailure } from "../Benchmark.ts"

export interface FilePart {
  readonly name: string
  readonly file: string
  readonly contentType: string
}

export interface Uploaded {
  readonly status: number
  readonly body: string
  /** From the first byte sent to the last byte of the answer. */
  readonly seconds: number
  readonly bytes: number
  /** When the first byte was sent (performance.now() of this process), for timings that go on after the answer. */
  readonly startedAt: number
}

/** A text part, sent before the files (/handle-json-int reads its `company` before the file). */
export interface FieldPart {
  readonly name: string
  readonly value: string
}

/**
 * POSTs files as multipart/form-data, streamed from disk with a Content-Length, as curl -F would.
 * No token: no Authorization header (the internal listener has none).
 */
export const uploadFiles = (
  url: string,
  token: string | undefined,
  parts: ReadonlyArray<FilePart>,
  fields: ReadonlyArray<FieldPart> = []
): Promise<Uploaded> => {
  const boundary = `----retail-bench-${crypto.randomUUID()}`
  const fieldBytes = Buffer.from(fields.map((f) => `--${boundary}\r\nContent-Disposition: form-data; name="${f.name}"\r\n\r\n${f.value}\r\n`).join(""))
  const heads = parts.map((p) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${basename(p.file)}"\r\nContent-Type: ${p.contentType}\r\n\r\n`)
  )
  const tail = Buffer.from(`--${boundary}--\r\n`)
  const fileBytes = parts.reduce((sum, p) => sum + statSync(p.file).size, 0)
  const length = fieldBytes.length + heads.reduce((sum, h) => sum + h.length + 2, 0) + fileBytes + tail.length
  return new Promise((resolve, reject) => {
    const startedAt = performance.now()
    const req = request(url, {
      method: "POST",
      headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": length }
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString("utf8"),
          seconds: (performance.now() - startedAt) / 1000,
          bytes: fileBytes,
          startedAt
        }))
      res.on("error", reject)
    })
    req.on("error", (error) => reject(new BenchmarkFailure(`upload to ${url} failed: ${error.message}`)))
    const send = async () => {
      if (fieldBytes.length > 0 && !req.write(fieldBytes)) await new Promise((r) => req.once("drain", r))
      for (const [i, part] of parts.entries()) {
        const head = heads[i]
        if (head !== undefined && !req.write(head)) await new Promise((r) => req.once("drain", r))
        for await (const chunk of createReadStream(part.file, { highWaterMark: 256 * 1024 })) {
          if (!req.write(chunk)) await new Promise((r) => req.once("drain", r))
        }
        req.write("\r\n")
      }
      req.end(tail)
    }
    send().catch(reject)
  })
}
