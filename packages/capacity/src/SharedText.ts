/**
 * JSON text of parts that outlive one answer: immutable values shared by many answers (a cached
 * dispatch's trace, dates and route lists), registered by whoever builds them. Their text is kept
 * while they live.
 */
const lastingText = new WeakMap<object, string | undefined>()

/** Marks values as never changing again and shared across answers: their JSON text is written once. */
export const lastingJson = (...values: ReadonlyArray<object>): void => {
  for (const value of values) if (!lastingText.has(value)) lastingText.set(value, undefined)
}

/**
 * JSON text of parts an answer holds more than once (the same array or object, by identity):
 * each is serialised once with JSON.stringify and the text reused, so a writer that splices it in
 * produces exactly what JSON.stringify of the whole answer would. One per answer (the texts are
 * kept until it is dropped); values marked `lastingJson` keep theirs across answers. `write`, when
 * given, must give exactly JSON.stringify's text (a writer that itself splices shared parts).
 */
export const sharedJsonText = (): <A extends object>(value: A, write?: (value: A) => string) => string => {
  const written = new Map<object, string>()
  return (value, write = JSON.stringify) => {
    if (Array.isArray(value) && value.length === 0) return "[]"
    let text = written.get(value) ?? lastingText.get(value)
    if (text === undefined) {
      text = write(value)
      written.set(value, text)
      if (lastingText.has(value)) lastingText.set(value, text)
    }
    return text
  }
}
