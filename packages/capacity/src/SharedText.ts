/**
 * JSON text of parts an answer holds more than once (the same array or object, by identity):
 * each is serialised once with JSON.stringify and the text reused, so a writer that splices it in
 * produces exactly what JSON.stringify of the whole answer would. One per answer (the texts are
 * kept until it is dropped).
 */
export const sharedJsonText = (): (value: object) => string => {
  const written = new Map<object, string>()
  return (value) => {
    if (Array.isArray(value) && value.length === 0) return "[]"
    let text = written.get(value)
    if (text === undefined) {
      text = JSON.stringify(value)
      written.set(value, text)
    }
    return text
  }
}
