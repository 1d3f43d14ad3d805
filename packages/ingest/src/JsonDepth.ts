/** Deeper JSON than this is refused: no product needs more than a few levels, and depth is a cheap weapon. */
export const MAX_JSON_DEPTH = 64

/** True when a parsed JSON value nests arrays/objects deeper than `max` (iterative: no stack to overflow). */
export const exceedsJsonDepth = (value: unknown, max: number = MAX_JSON_DEPTH): boolean => {
  const pending: Array<readonly [unknown, number]> = [[value, 1]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next
    if (typeof node !== "object" || node === null) continue
    if (depth > max) return true
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === "object" && child !== null) pending.push([child, depth + 1])
    }
  }
  return false
}
