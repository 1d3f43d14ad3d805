const grown = (array: Int32Array<ArrayBuffer>, need: number, fill: number): Int32Array<ArrayBuffer> => {
  if (need <= array.length) return array
  const bigger = new Int32Array(Math.max(need, 2 * array.length)).fill(fill, array.length)
  bigger.set(array)
  return bigger
}

/**
 * The lines of a partition file as offsets into its bytes, not as strings: line r is
 * `bytes[start[r], end[r])` (without its line feed). Lines are chained (`next[r]`, -1 after the last)
 * into lists kept in the order they were added.
 */
export class PartitionLines {
  start = new Int32Array(4096)
  end = new Int32Array(4096)
  next = new Int32Array(4096).fill(-1)
  count = 0
  /** The bytes as a Buffer, to decode. */
  readonly view: Buffer

  constructor(readonly bytes: Uint8Array) {
    this.view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
  }

  /** Adds bytes[start, end) as a line of no list yet; answers its number. */
  add(start: number, end: number): number {
    const r = this.count++
    if (r === this.start.length) {
      this.start = grown(this.start, r + 1, 0)
      this.end = grown(this.end, r + 1, 0)
      this.next = grown(this.next, r + 1, -1)
    }
    this.start[r] = start
    this.end[r] = end
    return r
  }

  /** Line r as text (the string path's input). */
  text(r: number): string {
    return this.view.toString("utf8", this.start[r], this.end[r])
  }
}

/**
 * Lists of lines, `kinds` lists per key (a productCode's number, a kind per child file), each in the
 * order its lines were appended, with their count.
 */
export class LineLists {
  head = new Int32Array(3 * 1024).fill(-1)
  tail = new Int32Array(3 * 1024).fill(-1)
  size = new Int32Array(3 * 1024)

  constructor(private readonly lines: PartitionLines, private readonly kinds: number) {}

  append(key: number, kind: number, line: number): void {
    const list = key * this.kinds + kind
    if (list >= this.head.length) {
      this.head = grown(this.head, list + 1, -1)
      this.tail = grown(this.tail, list + 1, -1)
      this.size = grown(this.size, list + 1, 0)
    }
    const last = this.tail[list]!
    if (last === -1) this.head[list] = line
    else this.lines.next[last] = line
    this.tail[list] = line
    this.size[list]!++
  }

  /** The first line of a list, -1 when it is empty. */
  first(key: number, kind: number): number {
    const list = key * this.kinds + kind
    return list < this.head.length ? this.head[list]! : -1
  }

  count(key: number, kind: number): number {
    const list = key * this.kinds + kind
    return list < this.size.length ? this.size[list]! : 0
  }
}
