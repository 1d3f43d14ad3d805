/** Buffers kept for reuse: one being filled while the previous one is written is the steady state. */
const SPARE_BUFFERS = 2

/**
 * Builds one batch's JSON array as bytes: products are appended as the bytes they arrived as, or
 * as JSON text when they must be re-encoded. `take` hands the array out and goes on in another
 * buffer, so the bytes handed out stay untouched while they are written; `recycle` gives their
 * buffer back once written (reusing buffers instead of allocating one per batch spares the
 * garbage collector hundreds of MB of short-lived external memory per large file).
 */
export class BatchBuffer {
  private bytes: Buffer
  private length = 0
  private products = 0
  private readonly spare: Array<Buffer> = []
  private readonly handedOut = new WeakMap<Uint8Array, Buffer>()

  constructor(capacity = 64 * 1024) {
    this.bytes = Buffer.allocUnsafe(capacity)
  }

  get count(): number {
    return this.products
  }

  appendBytes(json: Uint8Array): void {
    this.reserve(json.length + 2)
    this.separate()
    this.bytes.set(json, this.length)
    this.length += json.length
  }

  appendText(json: string): void {
    // At most 3 bytes per UTF-16 unit.
    this.reserve(json.length * 3 + 2)
    this.separate()
    this.length += this.bytes.write(json, this.length, "utf8")
  }

  /** The batch's products as a JSON array; the next batch goes into a spare buffer or a new one as large as this one grew. */
  take(): Uint8Array {
    if (this.products === 0) this.bytes[this.length++] = 0x5b
    this.bytes[this.length++] = 0x5d
    const array = this.bytes.subarray(0, this.length)
    this.handedOut.set(array, this.bytes)
    this.bytes = this.spare.pop() ?? Buffer.allocUnsafe(this.bytes.length)
    this.length = 0
    this.products = 0
    return array
  }

  /** Gives back the buffer of an array `take` handed out, once nothing reads it any more. */
  recycle(array: Uint8Array): void {
    const buffer = this.handedOut.get(array)
    this.handedOut.delete(array)
    if (buffer !== undefined && this.spare.length < SPARE_BUFFERS) this.spare.push(buffer)
  }

  private separate(): void {
    this.bytes[this.length++] = this.products === 0 ? 0x5b : 0x2c
    this.products++
  }

  /** Room for `more` bytes and the closing bracket. */
  private reserve(more: number): void {
    const needed = this.length + more + 1
    if (needed <= this.bytes.length) return
    const grown = Buffer.allocUnsafe(Math.max(needed, this.bytes.length * 2))
    this.bytes.copy(grown, 0, 0, this.length)
    this.bytes = grown
  }
}
