/**
 * Where each productCode of one load first appeared, for the rule that a later occurrence fails.
 *
 * A file load can hold millions of products, and every code must be remembered to its end. Held
 * in a `Map<string, number>`, a million 12-character codes took 59 MB of heap (strings and
 * entries), all of it walked again by every major GC; here they take 36 MB (growth slack included)
 * off the GC's object graph: characters in one Latin-1 byte arena, each entry's start, first index
 * and hash in typed arrays, and an open-addressing table of entry numbers. Codes with a character
 * above U+00FF (rare: the spec's codes are alphanumeric) go to a Map.
 */
export interface ProductCodeIndex {
  /** The index at which `code` first appeared; when it has not, records it at `index` and returns undefined. */
  readonly firstOrAdd: (code: string, index: number) => number | undefined
  readonly size: () => number
  /** The entries as stored, valid until the index next changes (a spilling index writes them out). */
  readonly entries: () => ProductCodeEntries
  /** Forgets every entry, keeping the tables' memory for the next ones. */
  readonly clear: () => void
}

/** Entry e (of `count`) is the code `chars[starts[e], starts[e + 1])` in Latin-1, first seen at `firsts[e]`; `wide` holds the others. */
export interface ProductCodeEntries {
  readonly count: number
  readonly chars: Uint8Array
  readonly starts: Uint32Array
  readonly firsts: Uint32Array
  readonly wide: ReadonlyMap<string, number>
}

/** Set in `hashOf`'s result when the code has a character above U+00FF. */
const WIDE = -1

/** FNV-1a over the code's characters (31 bits, so never WIDE for a narrow code), or WIDE. */
const hashOf = (code: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < code.length; i++) {
    const char = code.charCodeAt(i)
    if (char > 0xff) return WIDE
    hash = Math.imul(hash ^ char, 0x01000193)
  }
  return hash & 0x7fffffff
}

const grown = <A extends Uint8Array | Uint32Array>(array: A, atLeast: number, make: (length: number) => A): A => {
  if (array.length >= atLeast) return array
  let length = array.length * 2
  while (length < atLeast) length *= 2
  const next = make(length)
  next.set(array)
  return next
}

const powerOfTwoAtLeast = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, n)))

/** `hashBits` below 31 only to force collisions in tests. */
export const makeProductCodeIndex = (expectedEntries = 1024, hashBits = 31): ProductCodeIndex => {
  const hashMask = 2 ** hashBits - 1
  const initialEntries = powerOfTwoAtLeast(expectedEntries)
  let chars = new Uint8Array(initialEntries * 16)
  let charsUsed = 0
  /** Entry e's characters are chars[starts[e], starts[e + 1]). */
  let starts = new Uint32Array(initialEntries + 1)
  let firsts = new Uint32Array(initialEntries)
  let hashes = new Uint32Array(initialEntries)
  let entries = 0
  /** Entry number + 1; 0 is an empty slot. At most half full, so a probe ends soon. */
  let slots = new Uint32Array(initialEntries * 2)
  const wide = new Map<string, number>()

  const sameCode = (entry: number, code: string): boolean => {
    const start = starts[entry]!
    if (starts[entry + 1]! - start !== code.length) return false
    for (let i = 0; i < code.length; i++) if (chars[start + i] !== code.charCodeAt(i)) return false
    return true
  }

  const place = (entry: number, hash: number, table: Uint32Array): void => {
    const mask = table.length - 1
    let slot = hash & mask
    while (table[slot] !== 0) slot = (slot + 1) & mask
    table[slot] = entry + 1
  }

  const append = (code: string, hash: number, index: number): void => {
    if ((entries + 1) * 2 > slots.length) {
      const table = new Uint32Array(slots.length * 2)
      for (let entry = 0; entry < entries; entry++) place(entry, hashes[entry]!, table)
      slots = table
    }
    chars = grown(chars, charsUsed + code.length, (length) => new Uint8Array(length))
    for (let i = 0; i < code.length; i++) chars[charsUsed + i] = code.charCodeAt(i)
    charsUsed += code.length
    starts = grown(starts, entries + 2, (length) => new Uint32Array(length))
    firsts = grown(firsts, entries + 1, (length) => new Uint32Array(length))
    hashes = grown(hashes, entries + 1, (length) => new Uint32Array(length))
    starts[entries + 1] = charsUsed
    firsts[entries] = index
    hashes[entries] = hash
    place(entries, hash, slots)
    entries++
  }

  return {
    firstOrAdd: (code, index) => {
      const full = hashOf(code)
      if (full === WIDE) {
        const first = wide.get(code)
        if (first === undefined) wide.set(code, index)
        return first
      }
      const hash = full & hashMask
      const mask = slots.length - 1
      for (let slot = hash & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
        const entry = slots[slot]! - 1
        if (hashes[entry] === hash && sameCode(entry, code)) return firsts[entry]
      }
      append(code, hash, index)
      return undefined
    },
    size: () => entries + wide.size,
    entries: () => ({ count: entries, chars, starts, firsts, wide }),
    clear: () => {
      entries = 0
      charsUsed = 0
      slots.fill(0)
      wide.clear()
    }
  }
}
