const isObject = (value: unknown): value is object => typeof value === "object" && value !== null

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> => isObject(value) && !Array.isArray(value)

const keyCount = (record: object): number => {
  let count = 0
  // JSON.parse makes every key an own enumerable property ("__proto__" included), and nothing else is enumerable.
  for (const _ in record) count++
  return count
}

/**
 * True when `input` (a value from JSON.parse) and `decoded` (what validation made of it) are the
 * same JSON value. Validation keeps declared keys with their values and array lengths as they are
 * and drops undeclared keys, so what this mostly finds out is whether `input` held a key that was
 * dropped; when it did not, the input's own JSON text can be published instead of re-encoding it.
 */
export const validationKeptInput = (input: unknown, decoded: unknown): boolean => {
  if (Array.isArray(decoded)) {
    if (!Array.isArray(input) || input.length !== decoded.length) return false
    for (let i = 0; i < decoded.length; i++) if (!validationKeptInput(input[i], decoded[i])) return false
    return true
  }
  if (!isRecord(decoded)) return input === decoded
  if (!isRecord(input)) return false
  let keys = 0
  for (const key in decoded) {
    keys++
    const value = decoded[key]
    if (isObject(value) ? !validationKeptInput(input[key], value) : input[key] !== value) return false
  }
  return keys === keyCount(input)
}
