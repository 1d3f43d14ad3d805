/** Murmur3's finishing mix: spreads FNV's low bits, which the partition hash already fixed for every code here. */
const mix = (h: number): number => {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return h ^ (h >>> 16)
}

const grown = <A extends Int32Array | Buffer>(array: A, need: number, make: (length: number) => A): A => {
  if (need <= array.length) return array
  const bigger = make(Math.max(need, 2 * array.length))
  bigger.set(array)
  return bigger
}

/**
 * The productCodes of a partition as their UTF-8 bytes, each numbered (0, 1, ...) in the order it is
 * first seen, looked up from bytes without making a string. Its own copy of each code's bytes, so a
 * code may come from any buffer.
 */
export class ProductCodeNumbers {
  private keys = Buffer.alloc(16 * 1024)
  private keysUsed = 0
  private keyStart = new Int32Array(1024)
  private keyEnd = new Int32Array(1024)
  private hashes = new Int32Array(1024)
  /** Open addressing: a code's number + 1, 0 for an empty slot. */
  private slots = new Int32Array(2048)
  count = 0

  /** The number of the code bytes[start, end), added when it is new. */
  idOf(bytes: Uint8Array, start: number, end: number): number {
    let hash = 0x811c9dc5
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193)
    hash = mix(hash)
    const mask = this.slots.length - 1
    const keys = this.keys
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const found = this.slots[slot]! - 1
      if (found === -1) return this.add(bytes, start, end, hash, slot)
      if (this.hashes[found] !== hash) continue
      const keyStart = this.keyStart[found]!
      if (this.keyEnd[found]! - keyStart !== end - start) continue
      let i = 0
      while (i < end - start && keys[keyStart + i] === bytes[start + i]) i++
      if (i === end - start) return found
    }
  }

  /** The number of the code `text`, added when it is new. */
  idOfText(text: string): number {
    const bytes = Buffer.from(text, "utf8")
    return this.idOf(bytes, 0, bytes.length)
  }

  /** The code numbered `id`. */
  text(id: number): string {
    return this.keys.toString("utf8", this.keyStart[id], this.keyEnd[id])
  }

  private add(bytes: Uint8Array, start: number, end: number, hash: number, slot: number): number {
    const id = this.count++
    this.keys = grown(this.keys, this.keysUsed + end - start, (n) => Buffer.alloc(n))
    this.keys.set(bytes.subarray(start, end), this.keysUsed)
    this.keyStart = grown(this.keyStart, id + 1, (n) => new Int32Array(n))
    this.keyEnd = grown(this.keyEnd, id + 1, (n) => new Int32Array(n))
    this.hashes = grown(this.hashes, id + 1, (n) => new Int32Array(n))
    this.keyStart[id] = this.keysUsed
    this.keysUsed += end - start
    this.keyEnd[id] = this.keysUsed
    this.hashes[id] = hash
    this.slots[slot] = id + 1
    // At most half full, so that probes stay short.
    if (2 * this.count > this.slots.length) this.rehash()
    return id
  }

  private rehash(): void {
    const slots = new Int32Array(2 * this.slots.length)
    const mask = slots.length - 1
    for (let id = 0; id < this.count; id++) {
      let slot = this.hashes[id]! & mask
      while (slots[slot] !== 0) slot = (slot + 1) & mask
      slots[slot] = id + 1
    }
    this.slots = slots
  }
}
