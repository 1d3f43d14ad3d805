import { isStorableText, UNSTORABLE_TEXT } from "./Checks.ts"
import { type FieldIssue, formatPath } from "./DecodeError.ts"

/** A path as a chain to its parent, written out only for the issue: no copy per level. */
interface Step {
  readonly parent: Step | undefined
  readonly key: PropertyKey
  readonly depth: number
}

/** Deeper than this, a document is refused: PostgreSQL's jsonb (and JSON.stringify) would run out of stack on it. */
export const MAX_STORED_DEPTH = 100

const pathOf = (step: Step | undefined): ReadonlyArray<PropertyKey> => {
  const keys: Array<PropertyKey> = []
  for (let at = step; at !== undefined; at = at.parent) keys.push(at.key)
  return keys.reverse()
}

/**
 * What keeps a JSON value from being stored as sent (a document is stored as it came, as jsonb):
 * its first text, a key or a string, PostgreSQL refuses (U+0000, an unpaired surrogate), or nesting
 * deeper than MAX_STORED_DEPTH. Walked without recursion: a field nobody reads may be nested 100,000 deep.
 */
export const unstorableIn = (input: unknown): FieldIssue | undefined => {
  const pending: Array<readonly [unknown, Step | undefined]> = [[input, undefined]]
  while (pending.length > 0) {
    const [value, step] = pending.pop()!
    const depth = step === undefined ? 0 : step.depth
    if (depth > MAX_STORED_DEPTH) return { path: formatPath(pathOf(step)), message: `nested deeper than ${MAX_STORED_DEPTH} levels` }
    if (typeof value === "string") {
      if (!isStorableText(value)) return { path: formatPath(pathOf(step)), message: UNSTORABLE_TEXT }
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], { parent: step, key: i, depth: depth + 1 }])
    } else if (typeof value === "object" && value !== null) {
      const entries = Object.entries(value)
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!
        if (!isStorableText(key)) return { path: formatPath(pathOf(step)), message: `a key ${UNSTORABLE_TEXT}` }
        pending.push([item, { parent: step, key, depth: depth + 1 }])
      }
    }
  }
  return undefined
}
