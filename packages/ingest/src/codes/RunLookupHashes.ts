/** `place` picks a code's bucket in a run, `filter` its Bloom block; `wide` when a character is above U+00FF. */
export interface RunLookupHashes {
  place: number
  filter: number
  wide: boolean
}

export const makeRunLookupHashes = (): RunLookupHashes => ({ place: 0, filter: 0, wide: false })

const finish = (h: number): number => {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** Two multiplicative hashes over the code's UTF-16 units, finished by murmur3's mixer, into `into` (no allocation a lookup). */
export const hashCode = (code: string, into: RunLookupHashes): RunLookupHashes => {
  let a = 0x811c9dc5
  let b = 0x9747b28c
  let wide = false
  for (let i = 0; i < code.length; i++) {
    const unit = code.charCodeAt(i)
    if (unit > 0xff) wide = true
    a = Math.imul(a ^ unit, 0x01000193)
    b = Math.imul(b ^ unit, 0x5bd1e995)
  }
  into.place = finish(a ^ code.length)
  into.filter = finish(b)
  into.wide = wide
  return into
}

/** `hashCode` of the Latin-1 code chars[start, end). */
export const hashBytes = (chars: Uint8Array, start: number, end: number, into: RunLookupHashes): RunLookupHashes => {
  let a = 0x811c9dc5
  let b = 0x9747b28c
  for (let i = start; i < end; i++) {
    const unit = chars[i]!
    a = Math.imul(a ^ unit, 0x01000193)
    b = Math.imul(b ^ unit, 0x5bd1e995)
  }
  into.place = finish(a ^ (end - start))
  into.filter = finish(b)
  into.wide = false
  return into
}
