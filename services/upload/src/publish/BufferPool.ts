export interface BufferPoolOptions {
  /** How a buffer of `length` bytes is made: `Buffer.allocUnsafe` unless given (a SharedArrayBuffer's view, say). */
  readonly allocate?: (length: number) => Uint8Array
  /** When set, the buffers kept are let go once none was given back for this long, so that an idle server holds none. */
  readonly idleMs?: number
}

/**
 * Large buffers handed out and given back: reusing them spares the garbage collector the megabytes
 * of short-lived external memory each large file or body would otherwise allocate (V8 counts it
 * towards its next full collection: each MB of it brings one closer). Used for the batches of a
 * file load's publication, and across requests for /load-products' bodies, its products on their way
 * to the validation threads, and its entries.
 */
export class BufferPool {
  private free: Array<Uint8Array> = []
  private readonly owners = new WeakMap<Uint8Array, Uint8Array>()
  private readonly allocate: (length: number) => Uint8Array
  private idleTimer: ReturnType<typeof setTimeout> | undefined = undefined

  constructor(private readonly keep: number, private readonly options: BufferPoolOptions = {}) {
    this.allocate = options.allocate ?? Buffer.allocUnsafe
  }

  /** `length` bytes, from a buffer given back earlier when one is large enough. */
  readonly take = (length: number): Uint8Array => {
    const index = this.free.findIndex((buffer) => buffer.length >= length)
    // Sizes rounded up to a power of two, so that a batch and its entry (a few bytes longer) fit the same buffers.
    const buffer = index === -1 ? this.allocate(2 ** Math.ceil(Math.log2(Math.max(length, 64 * 1024)))) : this.free.splice(index, 1)[0]!
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
    this.releaseWhenIdle()
  }

  private releaseWhenIdle(): void {
    const idleMs = this.options.idleMs
    if (idleMs === undefined) return
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer)
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined
      this.free = []
    }, idleMs)
    this.idleTimer.unref()
  }
}
