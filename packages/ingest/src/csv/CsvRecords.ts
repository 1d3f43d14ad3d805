import { parseIntegerCell, parseNumberCell } from "./CsvCell.ts"
import { CsvHeaderError } from "./CsvErrors.ts"
import type { CsvColumn, CsvFileName, CsvLayout } from "./CsvLayout.ts"
import type { CsvDelimiter, CsvRow } from "./CsvReader.ts"

export type CsvValue = string | number | null

/** Why one row (so one product) fails; `column` is absent for row-wide faults. */
export interface CsvProblem {
  readonly file: CsvFileName
  readonly line: number
  readonly column?: string
  readonly reason: string
}

/** A data row mapped on its file's layout. Empty cells are absent, or null for nullable fields. */
export interface CsvRecord {
  readonly file: CsvFileName
  readonly line: number
  readonly values: Readonly<Record<string, CsvValue>>
  readonly problems: ReadonlyArray<CsvProblem>
}

const NO_PROBLEMS: ReadonlyArray<CsvProblem> = []

/**
 * A validated header: where each known column sits. Header names are matched after trimming,
 * case-sensitively; columns the layout does not know are ignored (listed in `ignored`).
 */
export class CsvHeader {
  /** The layout's columns that the header has, in layout order, with their position in a row. */
  private readonly present: ReadonlyArray<{ readonly column: CsvColumn; readonly at: number }>

  private constructor(
    readonly layout: CsvLayout,
    /** Layout column for each position of the header, undefined where ignored. */
    private readonly positions: ReadonlyArray<CsvColumn | undefined>,
    readonly ignored: ReadonlyArray<string>
  ) {
    this.present = layout.columns.flatMap((column) => {
      const at = positions.indexOf(column)
      return at === -1 ? [] : [{ column, at }]
    })
  }

  static resolve(layout: CsvLayout, header: ReadonlyArray<string>): CsvHeader | CsvHeaderError {
    const file = layout.file
    const byName = new Map(layout.columns.map((c) => [c.name, c]))
    const seen = new Set<string>()
    const ignored: Array<string> = []
    const positions = header.map((raw) => {
      const name = raw.trim()
      const column = byName.get(name)
      if (column === undefined) ignored.push(name)
      return column
    })
    for (const column of positions) {
      if (column === undefined) continue
      if (seen.has(column.name)) return new CsvHeaderError({ file, column: column.name, reason: `column "${column.name}" appears twice` })
      seen.add(column.name)
    }
    const missing = layout.columns.filter((c) => c.required && !seen.has(c.name)).map((c) => c.name)
    const first = missing[0]
    if (first !== undefined) {
      const list = missing.map((m) => `"${m}"`).join(", ")
      return new CsvHeaderError({ file, column: first, reason: `missing required column${missing.length > 1 ? "s" : ""} ${list}` })
    }
    return new CsvHeader(layout, positions, ignored)
  }

  /** Where the layout's column `name` is in a row, -1 when the header does not have it. */
  positionOf(name: string): number {
    return this.positions.findIndex((column) => column?.name === name)
  }

  /**
   * The values of a row without problems, as `map` gives them but with the keys in layout order (so
   * rows of a file share one object shape); undefined when the row has any problem (then `map` tells them).
   */
  values(fields: ReadonlyArray<string>, delimiter: CsvDelimiter): Record<string, CsvValue> | undefined {
    if (fields.length !== this.positions.length) return undefined
    const values: Record<string, CsvValue> = {}
    for (const { at, column } of this.present) {
      const cell = fields[at]!
      if (cell.length === 0) {
        if (column.nullable) values[column.name] = null
      } else if (column.type === "string") {
        values[column.name] = cell
      } else {
        const parsed = column.type === "number" ? parseNumberCell(cell, delimiter) : parseIntegerCell(cell)
        if (typeof parsed !== "number") return undefined
        values[column.name] = parsed
      }
    }
    return values
  }

  map(row: CsvRow, delimiter: CsvDelimiter): CsvRecord {
    const file = this.layout.file
    const { fields, line } = row
    const positions = this.positions
    let problems: Array<CsvProblem> | undefined
    if (row.fault !== undefined) (problems ??= []).push({ file, line, reason: row.fault })
    if (fields.length !== positions.length) {
      (problems ??= []).push({ file, line, reason: `the row has ${fields.length} fields, the header has ${positions.length}` })
    }
    const values: Record<string, CsvValue> = {}
    const count = Math.min(fields.length, positions.length)
    for (let i = 0; i < count; i++) {
      const column = positions[i]
      if (column === undefined) continue
      const cell = fields[i]!
      if (cell.length === 0) {
        if (column.nullable) values[column.name] = null
        continue
      }
      if (column.type === "string") {
        values[column.name] = cell
        continue
      }
      const parsed = column.type === "number" ? parseNumberCell(cell, delimiter) : parseIntegerCell(cell)
      if (typeof parsed === "number") values[column.name] = parsed
      else (problems ??= []).push({ file, line, column: column.name, reason: parsed })
    }
    return { file, line, values, problems: problems ?? NO_PROBLEMS }
  }
}
