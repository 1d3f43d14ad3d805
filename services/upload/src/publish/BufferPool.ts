/**
 * Large buffers handed out and given back, for the batches of a file load's publication: reusing
 * them spares the garbage collector the hundreds of MB of short-lived external memory a large file
 * would otherwise allocate (each MB of it brings a full collection closer).
 */
export class BufferPool {
  private readonly free: Array<Buffer> = []
  private readonly owners = new WeakMap<Uint8Array, Buffer>()

  constructor(private readonly keep: number) {}

  /** `length` bytes, from a buffer given back earlier when one is large enough. */
  readonly take = (length: number): Uint8Array => {
    const index = this.free.findIndex((buffer) => buffer.length >= length)
    // Sizes rounded up to a power of two, so that a batch and its entry (a few bytes longer) fit the same buffers.
    const buffer = index === -1 ? Buffer.allocUnsafe(2 ** Math.ceil(Math.log2(Math.max(length, 64 * 1024)))) : this.free.splice(index, 1)[0]!
    const view = buffer.subarray(0, length)
    this.owners.set(view, buffer)
    return view
  }

  /** Gives back what `take` handed out, once nothing reads it any more. */
  readonly give = (view: Uint8Array): void => {
    const buffer = this.owners.get(view)
    if (buffer === undefined) return
    this.owners.delete(view)
    if (this.free.length < this.keep) this.free.push(buffer)
  }
}
