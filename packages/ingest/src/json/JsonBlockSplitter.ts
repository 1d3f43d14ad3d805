import { JsonProductScanner, type JsonScanOptions, type ScannedProduct } from "./JsonProductScanner.ts"
import type { JsonSyntaxError } from "./JsonSyntaxError.ts"
import { type JsonBlock, LAYOUT_END, LAYOUT_FIELDS, LAYOUT_LINE, LAYOUT_LINE_START, LAYOUT_OFFSET, LAYOUT_START } from "./JsonBlock.ts"

/** Buffers of returned blocks kept for the next ones: about the blocks in flight at once. */
const SPARE_BLOCKS = 8
const INITIAL_LAYOUT_PRODUCTS = 1024

/**
 * Splits a JSON products file, fed in chunks, into blocks of about `blockBytes` of whole products
 * for the validation threads. The scanner checks the document's structure here and delimits the
 * products without parsing them (the threads parse); a fault it finds ends the file.
 */
export class JsonBlockSplitter {
  private readonly scanner: JsonProductScanner
  private readonly spareBytes: Array<ArrayBuffer> = []
  private readonly spareLayouts: Array<ArrayBuffer> = []
  private bytes: Uint8Array
  private layout: Float64Array
  private used = 0
  private count = 0
  private firstIndex = 0
  private full: Array<JsonBlock> = []
  private readonly emit = (product: ScannedProduct): void => this.append(product)

  constructor(private readonly company: string, private readonly blockBytes: number, scan: JsonScanOptions = {}) {
    this.scanner = new JsonProductScanner({ ...scan, parseProducts: false })
    this.bytes = new Uint8Array(blockBytes)
    this.layout = new Float64Array(INITIAL_LAYOUT_PRODUCTS * LAYOUT_FIELDS)
  }

  /** The blocks this chunk completed, or the file's fault (after which nothing more is split). */
  push(chunk: Uint8Array): ReadonlyArray<JsonBlock> | JsonSyntaxError {
    const error = this.scanner.push(chunk, this.emit)
    return error ?? this.takeFull()
  }

  /** The end of the file: its fault if it is not complete, else the last blocks. */
  end(): ReadonlyArray<JsonBlock> | JsonSyntaxError {
    const error = this.scanner.end()
    if (error !== undefined) return error
    this.close()
    return this.takeFull()
  }

  /** What was split before the input stopped short (for faults found in it to win over the input's own failure). */
  flush(): ReadonlyArray<JsonBlock> {
    this.close()
    return this.takeFull()
  }

  /** Gives a block's buffers back, once its result was read, for a later block. */
  recycle(block: JsonBlock): void {
    if (block.bytes instanceof ArrayBuffer && block.bytes.byteLength === this.blockBytes && this.spareBytes.length < SPARE_BLOCKS) this.spareBytes.push(block.bytes)
    if (this.spareLayouts.length < SPARE_BLOCKS) this.spareLayouts.push(block.layout)
  }

  private append(product: ScannedProduct): void {
    const json = product.json
    if (this.used + json.length > this.bytes.length) {
      this.close()
      if (json.length > this.bytes.length) this.bytes = new Uint8Array(json.length)
    }
    if ((this.count + 1) * LAYOUT_FIELDS > this.layout.length) {
      const grown = new Float64Array(this.layout.length * 2)
      grown.set(this.layout)
      this.layout = grown
    }
    this.bytes.set(json, this.used)
    const at = this.count * LAYOUT_FIELDS
    this.layout[at + LAYOUT_START] = this.used
    this.used += json.length
    this.layout[at + LAYOUT_END] = this.used
    this.layout[at + LAYOUT_OFFSET] = product.offset
    this.layout[at + LAYOUT_LINE] = product.line
    this.layout[at + LAYOUT_LINE_START] = product.lineStart
    this.count++
  }

  /** Completes the block being filled, if it holds a product, and starts the next one. */
  private close(): void {
    if (this.count === 0) return
    this.full.push({ company: this.company, firstIndex: this.firstIndex, count: this.count, bytes: this.bytes.buffer as ArrayBuffer, layout: this.layout.buffer as ArrayBuffer })
    this.firstIndex += this.count
    this.count = 0
    this.used = 0
    this.bytes = new Uint8Array(this.spareBytes.pop() ?? new ArrayBuffer(this.blockBytes))
    const layout = this.spareLayouts.pop()
    this.layout = layout === undefined ? new Float64Array(INITIAL_LAYOUT_PRODUCTS * LAYOUT_FIELDS) : new Float64Array(layout)
  }

  private takeFull(): ReadonlyArray<JsonBlock> {
    if (this.full.length === 0) return []
    const blocks = this.full
    this.full = []
    return blocks
  }
}
