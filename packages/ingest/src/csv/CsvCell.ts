import type { CsvDelimiter } from "./CsvReader.ts"

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/
const DECIMAL_COMMA = /^[+-]?\d+,\d+$/
const INTEGER = /^[+-]?\d+$/

/** Strict decimal number: the whole trimmed cell must be one; a decimal comma only in `;` files. Else a reason. */
export const parseNumberCell = (cell: string, delimiter: CsvDelimiter): number | string => {
  const text = cell.trim()
  if (NUMBER.test(text)) return Number(text)
  if (delimiter === ";" && DECIMAL_COMMA.test(text)) return Number(text.replace(",", "."))
  return `${JSON.stringify(cell)} is not a number`
}

/** Strict integer within the safe range (int64 values beyond 2^53 would lose digits). Else a reason. */
export const parseIntegerCell = (cell: string): number | string => {
  const text = cell.trim()
  if (!INTEGER.test(text)) return `${JSON.stringify(cell)} is not an integer`
  const value = Number(text)
  return Number.isSafeInteger(value) ? value : `${JSON.stringify(cell)} is outside the exact integer range (±2^53)`
}
