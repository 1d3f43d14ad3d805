/**
 * JSON text of parts that outlive one answer: immutable values shared by many answers (a reused
 * plan's trace, dates and route lists; a node's entity details), registered by whoever builds them.
 * `null` until first written; their text is kept while they live.
 */
const lastingText = new WeakMap<object, string | null>()

/** Marks values as never changing again and shared across answers: their JSON text is written once. */
export const markJsonLasting = (...values: ReadonlyArray<object>): void => {
  for (const value of values) if (!lastingText.has(value)) lastingText.set(value, null)
}

/** `JSON.stringify(value)`, kept across answers when the value is marked `markJsonLasting`. */
export const lastingJsonText = <A extends object>(value: A, write: (value: A) => string = JSON.stringify): string => {
  const kept = lastingText.get(value)
  if (typeof kept === "string") return kept
  const text = write(value)
  if (kept === null) lastingText.set(value, text)
  return text
}

/**
 * JSON text of parts an answer holds more than once (the same array or object, by identity):
 * each is serialised once with JSON.stringify and the text reused, so a writer that splices it in
 * produces exactly what JSON.stringify of the whole answer would. One per answer (the texts are
 * kept until it is dropped); values marked `markJsonLasting` keep theirs across answers. `write`, when
 * given, must give exactly JSON.stringify's text (a writer that itself splices shared parts).
 */
export const sharedJsonText = (): <A extends object>(value: A, write?: (value: A) => string) => string => {
  const written = new Map<object, string>()
  return (value, write = JSON.stringify) => {
    if (Array.isArray(value) && value.length === 0) return "[]"
    let text = written.get(value)
    if (text === undefined) {
      text = lastingJsonText(value, write)
      written.set(value, text)
    }
    return text
  }
}
