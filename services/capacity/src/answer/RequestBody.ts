import { Buffer } from "node:buffer"

const textOf = (chunk: Uint8Array): string =>
  (Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)).toString("utf8")

/**
 * A capacity request body as both adapters read it, chunk by chunk to its end: its first
 * `maxBytes` kept (a body too large is still answered in the format of its variant), the rest
 * counted and dropped.
 */
export class RequestBody {
  private readonly chunks: Array<Uint8Array> = []
  /** Bytes received so far, dropped ones included. */
  size = 0

  constructor(private readonly maxBytes: number) {}

  add(chunk: Uint8Array): void {
    const before = this.size
    this.size += chunk.length
    if (this.size <= this.maxBytes) this.chunks.push(chunk)
    else if (before < this.maxBytes) this.chunks.push(chunk.subarray(0, this.maxBytes - before))
  }

  get tooLarge(): boolean {
    return this.size > this.maxBytes
  }

  /** What was kept, as UTF-8 text. */
  text(): string {
    const [first] = this.chunks
    if (first === undefined) return ""
    return this.chunks.length === 1 ? textOf(first) : Buffer.concat(this.chunks).toString("utf8")
  }
}
