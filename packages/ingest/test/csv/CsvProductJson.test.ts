import { describe, expect, it } from "@effect/vitest"
import { isRealDateTime, validateForCompany } from "@retail/domain"
import { type CsvColumn, type CsvDelimiter, type CsvFileName, CsvHeader, type CsvLayout, CsvLayouts, type CsvRow, type CsvValue } from "@retail/ingest"
import { Result } from "effect"
import fc from "fast-check"
import type { CsvFileHeaders } from "../../src/csv/CsvFileHeaders.ts"
import { joinPartitionEncoding } from "../../src/csv/CsvJoin.ts"
import { isPlainNumber, isRealDateTimeBytes } from "../../src/csv/CsvCellBytes.ts"
import { decodePartitionRow, encodeLineRow, encodePartitionRow } from "../../src/csv/CsvPartitionRow.ts"
import { CsvProductJson } from "../../src/csv/CsvProductJson.ts"
import { LineLists, PartitionLines } from "../../src/csv/PartitionLines.ts"
import { ProductJsonBytes } from "../../src/csv/ProductJsonBytes.ts"

/**
 * `makeCsvProductJson` validates and writes a product straight from the bytes of its partition lines;
 * the reference is the path it shortcuts: the lines decoded (`decodePartitionRow`), typed with
 * `CsvHeader.values` into the product value (as `joinPartition` builds it), `validateForCompany`, then
 * `JSON.stringify`. Whenever the shortcut writes a product, the reference must accept it with exactly
 * those bytes; and it must write every product the reference accepts whose rows are all one-line records.
 * Both read the lines as the join does: UTF-8 bytes (a lone surrogate in a generated cell is U+FFFD there,
 * as a partition file, valid UTF-8, can hold nothing else).
 */

const COMPANY = "ACME"
const CHILD_FILES = ["hierarchiesCsv", "barcodesCsv", "attributesCsv"] as const
const LIST_OF = { hierarchiesCsv: "hierarchies", barcodesCsv: "barcodes", attributesCsv: "lstAttributes" } as const

const often = <A>(valid: fc.Arbitrary<A>, odd: fc.Arbitrary<A>) =>
  fc.oneof({ weight: 60, arbitrary: valid }, { weight: 1, arbitrary: odd })

const oddText = fc.oneof(
  fc.constantFrom("", " ", "a\"b", "\"\"", "back\\slash", "line\nbreak", "tab\t", "nul\u0000", "lone\ud800", "lone\udc00x", "emoji 😀", "é€漢", "\u2028", "\u007f"),
  fc.constantFrom("\u0001\u001f\b\f\r", "\"quoted\" \\ \u0007", "x\u0000", "😀\"😀", "ñ;ñ,ñ"),
  fc.string({ unit: "grapheme", maxLength: 8 }),
  fc.string({ unit: "binary", maxLength: 8 }),
  fc.constantFrom(100, 101, 1000, 1001, 4000, 4001).map((n) => "x".repeat(n)),
  // Limits in UTF-16 units from 2-, 3- and 4-byte characters (a 4-byte one is two units).
  fc.constantFrom(
    "é".repeat(100), "é".repeat(101), "€".repeat(1000), "€".repeat(1001), "😀".repeat(50), "😀".repeat(51), `${"x".repeat(99)}😀`,
    "😀".repeat(500), "😀".repeat(501), "é".repeat(4000), "é".repeat(4001), "😀".repeat(2000), "😀".repeat(2001)
  )
)
/** Mostly what the benchmark's files hold (ASCII and Spanish), now and then any character, a quote or an escape. */
const plainText = (minLength: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength, maxLength: 30 }) },
    { weight: 2, arbitrary: fc.array(fc.constantFrom(..."abcxyz ñáéíóú,;\"\\"), { minLength, maxLength: 30 }).map((chars) => chars.join("")) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", minLength, maxLength: 12 }) }
  )
const codeCell = often(fc.stringMatching(/^[A-Z0-9-]{1,12}$/), oddText)
const textCell = often(plainText(0), oddText)
const numberCell = (delimiter: CsvDelimiter) =>
  often(
    fc.oneof(fc.nat(100000).map(String), fc.double({ min: 0, max: 1e6, noNaN: true }).map(String), fc.constant(delimiter === ";" ? "12,5" : "12.5")),
    fc.constantFrom("", "0", "-0", "-1", "1,5", " 2 ", "1e3", "1e400", ".5", "5.", "abc", "+3", "0x10", "2147483647", "2147483648", "-2147483648", "-2147483649", "9007199254740991", "9007199254740993", "1.5e-7")
  )
const integerCell = often(
  fc.integer({ min: 1, max: 50 }).map(String),
  fc.constantFrom("", "0", "-0", "-1", " 7 ", "1.0", "1e3", "2147483647", "2147483648", "-2147483648", "-2147483649", "9007199254740991", "9007199254740992", "+4", "one")
)
const dateCell = often(
  fc.constantFrom("2024-02-29 10:00:00", "2023-12-31 23:59:59", "0001-01-01 00:00:00"),
  fc.constantFrom("", "2023-02-29 10:00:00", "2024-13-01 00:00:00", "0000-01-01 00:00:00", "2024-01-01T00:00:00", " 2024-01-01 00:00:00", "2024-01-01 24:00:00")
)
const oneOfCell = (values: ReadonlyArray<string>) => often(fc.constantFrom(...values), fc.constantFrom("", "normal", "X", "T ", "t"))

/** A cell for `column`, mostly one its field accepts. `code`: the product's productCode (children mostly repeat it). */
const cellFor = (file: CsvFileName, column: CsvColumn, delimiter: CsvDelimiter, code: string): fc.Arbitrary<string> => {
  if (column.name === "productCode") return file === "productsCsv" ? fc.constant(code) : often(fc.constant(code), codeCell)
  if (column.type === "number") return numberCell(delimiter)
  if (column.type === "integer") return integerCell
  switch (column.name) {
    case "dispatchType":
      return fc.oneof(oneOfCell(["NORMAL", "EXPRESS", "INTERNATIONAL"]), fc.constant(""))
    case "unitMeasurement":
      return oneOfCell(["UN", "KG", "LT", "ML"])
    case "taxSale":
    case "isEcommerce":
    case "measurable":
      return oneOfCell(["T", "F"])
    case "dateUpdate":
      return dateCell
    case "companyCode":
      return often(fc.constantFrom("", COMPANY), fc.constantFrom("OTHER", "acme", " ACME"))
    case "description":
    case "indicator":
    case "attributeType":
    case "attributeDescription":
    case "hierarchyParent":
    case "hierarchyName":
    case "hierarchyDescription":
    case "hierarchyBreadcrumb":
    case "attributeDescriptionDetail":
      return column.required ? often(plainText(1), oddText) : fc.oneof(fc.constant(""), textCell)
    default:
      return column.required ? codeCell : fc.oneof(fc.constant(""), codeCell)
  }
}

/** A header for `layout`: every required column, some optional ones, maybe an unknown one, in any order. */
const headerFor = (layout: CsvLayout) =>
  fc.tuple(fc.subarray(layout.columns.filter((c) => !c.required).map((c) => c.name)), fc.boolean()).chain(([optional, unknown]) => {
    const names = [...layout.columns.filter((c) => c.required || optional.includes(c.name)).map((c) => c.name), ...(unknown ? ["notes"] : [])]
    return fc.shuffledSubarray(names, { minLength: names.length, maxLength: names.length })
  })

/** A product's child rows by file, as partition lines. */
interface ChildLines {
  readonly hierarchiesCsv: ReadonlyArray<string>
  readonly barcodesCsv: ReadonlyArray<string>
  readonly attributesCsv: ReadonlyArray<string>
}

interface Case {
  readonly headers: CsvFileHeaders
  readonly product: string
  readonly children: ChildLines
}

/** A line as the join reads it: its UTF-8 bytes decoded. */
const asRead = (line: string): string => Buffer.from(line, "utf8").toString("utf8")

/**
 * A row as the splitter writes it to a partition: a one-line record as its CSV text (cells quoted when
 * they must be, and now and then when they need not), any other row (a line break in a cell, a fault)
 * in the other encodings.
 */
const partitionLine = (file: CsvFileName, row: CsvRow, delimiter: CsvDelimiter, quote: ReadonlyArray<boolean>): string => {
  if (row.fault !== undefined || row.fields.some((cell) => /[\n\r]/.test(cell))) {
    return encodePartitionRow(file, row, row.fields.some((cell) => /[\x1d-\x1f]/.test(cell))).slice(0, -1)
  }
  const text = row.fields
    .map((cell, i) => cell.includes(delimiter) || cell.startsWith("\"") || quote[i] === true ? `"${cell.replaceAll("\"", "\"\"")}"` : cell)
    .join(delimiter)
  return encodeLineRow(file, row.line, text).slice(0, -1)
}

/** A row of `file` under `fields` (its header), with now and then a row-wide fault or a cell too few, as a partition line. */
const rowFor = (file: CsvFileName, fields: ReadonlyArray<string>, delimiter: CsvDelimiter, code: string, line: number): fc.Arbitrary<string> =>
  fc.record({
    cells: fc.tuple(...fields.map((name) => {
      const column = CsvLayouts[file].columns.find((c) => c.name === name)
      return column === undefined ? fc.string({ maxLength: 5 }) : cellFor(file, column, delimiter, code)
    })),
    quote: fc.array(fc.boolean(), { minLength: fields.length, maxLength: fields.length }),
    odd: fc.integer({ min: 0, max: 40 })
  }).map(({ cells, odd, quote }): string =>
    partitionLine(
      file,
      odd === 0 ? { line, fields: cells, fault: "text after a closing quote" } : odd === 1 ? { line, fields: cells.slice(1) } : { line, fields: cells },
      delimiter,
      quote
    )
  )

const caseArbitrary: fc.Arbitrary<Case> = fc.record({
  code: codeCell,
  delimiters: fc.tuple(...([0, 1, 2, 3] as const).map(() => fc.constantFrom<CsvDelimiter>(",", ";"))),
  fields: fc.tuple(headerFor(CsvLayouts.productsCsv), headerFor(CsvLayouts.hierarchiesCsv), headerFor(CsvLayouts.barcodesCsv), headerFor(CsvLayouts.attributesCsv)),
  counts: fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }))
}).chain(({ code, counts, delimiters, fields }) => {
  const files: ReadonlyArray<CsvFileName> = ["productsCsv", "hierarchiesCsv", "barcodesCsv", "attributesCsv"]
  const headers = Object.fromEntries(files.map((file, i) => {
    const header = CsvHeader.resolve(CsvLayouts[file], fields[i]!)
    if (!(header instanceof CsvHeader)) throw new Error(header.message)
    return [file, { header, delimiter: delimiters[i]!, fields: fields[i]! }]
  })) as unknown as CsvFileHeaders
  const rows = (file: CsvFileName, count: number) =>
    fc.tuple(...Array.from({ length: count }, (_, i) => rowFor(file, headers[file].fields, headers[file].delimiter, code, 10 + i)))
  return fc.record({
    product: rowFor("productsCsv", headers.productsCsv.fields, headers.productsCsv.delimiter, code, 2),
    hierarchiesCsv: rows("hierarchiesCsv", counts[0]),
    barcodesCsv: rows("barcodesCsv", counts[1]),
    attributesCsv: rows("attributesCsv", counts[2])
  }).map(({ product, ...children }) => ({ headers, product, children }))
})

/** The path the shortcut replaces: typed values as `joinPartition` builds them, then `validateForCompany` and `JSON.stringify`. */
const reference = ({ children, headers, product }: Case): string | undefined => {
  const valuesOf = (file: CsvFileName, line: string): Record<string, CsvValue> | undefined => {
    const row = decodePartitionRow(asRead(line), headers[file].delimiter)?.row
    return row !== undefined && row.fault === undefined ? headers[file].header.values(row.fields, headers[file].delimiter) : undefined
  }
  const value: Record<string, unknown> | undefined = valuesOf("productsCsv", product)
  if (value === undefined) return undefined
  for (const file of CHILD_FILES) {
    const list: Array<unknown> = []
    for (const line of children[file]) {
      const values = valuesOf(file, line)
      if (values === undefined) return undefined
      list.push(values)
    }
    value[LIST_OF[file]] = list
  }
  return Result.match(validateForCompany(value, COMPANY), { onFailure: () => undefined, onSuccess: (p) => JSON.stringify(p) })
}

/** The product's and its children's lines in one buffer, as a partition: the shortcut reads them from there. */
const shortcut = ({ children, headers, product }: Case): string | undefined => {
  const files = [[product], children.hierarchiesCsv, children.barcodesCsv, children.attributesCsv]
  const bytes = Buffer.from(files.flat().map((line) => `${line}\n`).join(""), "utf8")
  const lines = new PartitionLines(bytes)
  const lists = new LineLists(lines, files.length)
  let at = 0
  files.forEach((list, kind) => {
    for (const line of list) {
      const length = Buffer.byteLength(line, "utf8")
      lists.append(0, kind, lines.add(at, at + length))
      at += length + 1
    }
  })
  const out = new ProductJsonBytes(undefined)
  // A product already written before: the shortcut appends after it, and drops only its own bytes when it gives up.
  out.append("[0]")
  const written = new CsvProductJson(headers, COMPANY, out).write(lines, lists.first(0, 0), lists.first(0, 1), lists.first(0, 2), lists.first(0, 3))
  out.end()
  const text = Buffer.from(out.written).toString("utf8")
  expect(text.startsWith("[0]")).toBe(true)
  return written ? text.slice(3) : (expect(text).toBe("[0]"), undefined)
}

/** A row in another encoding than a one-line record's (`encodeLineRow`). */
const notOneLine = ({ children, product }: Case): boolean =>
  [product, ...CHILD_FILES.flatMap((file) => children[file])].some((line) => !/^[PHBA]\d+\x1d/.test(line))

describe("a CSV product validated and encoded from its cells", () => {
  it("is written exactly when the typed product passes validateForCompany, as its JSON.stringify", () => {
    let written = 0
    let refused = 0
    // Products written with a character of 2-3 bytes, of 4 bytes (two UTF-16 units), an escape.
    let nonAscii = 0
    let astral = 0
    let escaped = 0
    // CSV_PROPERTY_RUNS / CSV_PROPERTY_SEED: a longer run, or a failure's seed replayed.
    fc.assert(
      fc.property(caseArbitrary, (c) => {
        const expected = reference(c)
        const actual = shortcut(c)
        if (actual !== undefined) {
          written++
          expect(actual).toBe(expected)
          if (/[^\x00-\x7f]/.test(actual)) nonAscii++
          if (/[\u{10000}-\u{10ffff}]/u.test(actual)) astral++
          if (/\\["\\bfnrt]|\\u00/.test(actual)) escaped++
        } else {
          refused++
          if (!notOneLine(c)) expect(expected).toBeUndefined()
        }
      }),
      { numRuns: Number(process.env["CSV_PROPERTY_RUNS"] ?? 4000), ...(process.env["CSV_PROPERTY_SEED"] === undefined ? {} : { seed: Number(process.env["CSV_PROPERTY_SEED"]) }) }
    )
    // Both sides of the property were exercised.
    expect(written).toBeGreaterThan(400)
    expect(refused).toBeGreaterThan(400)
    expect(nonAscii).toBeGreaterThan(500)
    expect(astral).toBeGreaterThan(200)
    expect(escaped).toBeGreaterThan(300)
  })

  it("copies a number cell only when String writes its value as the same text", () => {
    const numberText = fc.oneof(
      fc.double({ min: 0, max: 1e22, noNaN: true }).map(String),
      fc.double({ min: 0, max: 1e-3, noNaN: true }).map(String),
      fc.nat().map(String),
      fc.stringMatching(/^[0-9]{0,17}(\.[0-9]{0,17})?$/),
      fc.constantFrom("0", "00", "0.0", "0.000001", "0.0000001", "1.", ".5", "123456789012345", "1234567890123456", "0.100", "1e5", "-1", " 1")
    )
    let plain = 0
    fc.assert(
      fc.property(numberText, fc.boolean(), (text, fraction) => {
        if (!isPlainNumber(Buffer.from(`x${text}y`, "latin1"), 1, text.length + 1, fraction)) return
        plain++
        expect(String(Number(text))).toBe(text)
        if (!fraction) expect(text).toMatch(/^\d+$/)
      }),
      { numRuns: 5000 }
    )
    expect(plain).toBeGreaterThan(1000)
  })

  it("checks a date on its bytes as the domain checks its text", () => {
    const pad = (n: number, width: number) => String(n).padStart(width, "0")
    const dateText = fc.oneof(
      fc.tuple(fc.integer({ min: 0, max: 2100 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), fc.integer({ min: 0, max: 24 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 }))
        .map(([y, mo, d, h, mi, sec]) => `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)} ${pad(h, 2)}:${pad(mi, 2)}:${pad(sec, 2)}`),
      fc.string({ unit: "binary", maxLength: 20 }),
      fc.constantFrom("1900-02-29 00:00:00", "2000-02-29 00:00:00", "0004-02-29 00:00:00", "0100-02-29 00:00:00", "2024-1-01 00:00:00", "2024-01-01 00:00:0a", "2024-01-01 00:00:00 ", "2024-01-01T00:00:00", "2024-01-01 00:00:00\n", "２024-01-01 00:00:00")
    )
    let real = 0
    fc.assert(
      fc.property(dateText, (text) => {
        const bytes = Buffer.from(`"${text}"`, "utf8")
        const expected = isRealDateTime(text)
        expect(isRealDateTimeBytes(bytes, 1, bytes.length - 1)).toBe(expected)
        if (expected) real++
      }),
      { numRuns: 5000 }
    )
    expect(real).toBeGreaterThan(500)
  })

  const fullHeaders = (): CsvFileHeaders => {
    const fields = {
      productsCsv: CsvLayouts.productsCsv.columns.map((c) => c.name),
      hierarchiesCsv: CsvLayouts.hierarchiesCsv.columns.map((c) => c.name),
      barcodesCsv: CsvLayouts.barcodesCsv.columns.map((c) => c.name),
      attributesCsv: CsvLayouts.attributesCsv.columns.map((c) => c.name)
    }
    return Object.fromEntries(Object.entries(fields).map(([file, names]) => {
      const header = CsvHeader.resolve(CsvLayouts[file as CsvFileName], names)
      if (!(header instanceof CsvHeader)) throw new Error(header.message)
      return [file, { header, delimiter: ",", fields: names }]
    })) as unknown as CsvFileHeaders
  }
  const productText = (description: string) => `P1,S1,E1,${description},10,1,1,1,1,TOOL,,UN,UN1,H1,,T,,,ACTIVE,2024-01-01 00:00:00,T,F,,1`
  const hierarchy = encodeLineRow("hierarchiesCsv", 2, "P1,H1,1,,,,").slice(0, -1)
  const barcode = (code: string) => encodeLineRow("barcodesCsv", 2, `${code},775,MAIN`).slice(0, -1)

  it("leaves a product with no hierarchy row, or a child of another productCode, to the full validation", () => {
    const headers = fullHeaders()
    const product = encodeLineRow("productsCsv", 2, productText("Drill")).slice(0, -1)
    const c = (children: ChildLines): Case => ({ headers, product, children })
    const valid = c({ hierarchiesCsv: [hierarchy], barcodesCsv: [barcode("P1")], attributesCsv: [] })
    expect(reference(valid)).toBeDefined()
    expect(shortcut(valid)).toBe(reference(valid))
    expect(shortcut(c({ hierarchiesCsv: [], barcodesCsv: [], attributesCsv: [] }))).toBeUndefined()
    expect(shortcut(c({ hierarchiesCsv: [hierarchy], barcodesCsv: [barcode("P2")], attributesCsv: [] }))).toBeUndefined()
  })

  it("compares a child's productCode with its product's, quotes undone on both sides", () => {
    const headers = fullHeaders()
    const product = encodeLineRow("productsCsv", 2, productText("Drill").replace("P1,", "\"P\"\"1\",")).slice(0, -1)
    const quotedHierarchy = encodeLineRow("hierarchiesCsv", 3, "\"P\"\"1\",H1,1,,,,").slice(0, -1)
    const barcodes = [encodeLineRow("barcodesCsv", 4, "\"P\"\"1\",775,MAIN").slice(0, -1), encodeLineRow("barcodesCsv", 5, "P\"1,776,MAIN").slice(0, -1)]
    const c: Case = { headers, product, children: { hierarchiesCsv: [quotedHierarchy], barcodesCsv: barcodes, attributesCsv: [] } }
    expect(reference(c)).toContain(`"productCode":"P\\"1"`)
    expect(shortcut(c)).toBe(reference(c))
  })

  it("reads a partition that is not valid UTF-8 as its text decoding reads it (U+FFFD for a bad sequence), on the byte path too", () => {
    const headers = fullHeaders()
    // A stray byte, a surrogate encoded in UTF-8, a character cut short: none passes the split, all read as U+FFFD.
    const description = Buffer.from([0x44, 0xff, 0x72, 0xed, 0xa0, 0x80, 0x69, 0xc3])
    const [before, after] = productText("@").split("@") as [string, string]
    const partition = Buffer.concat([
      Buffer.from(`P2\x1d${before}`, "latin1"), description, Buffer.from(`${after}\n${hierarchy}\n${barcode("P1")}\n`, "latin1")
    ])
    const out = new ProductJsonBytes(undefined)
    const items = [...joinPartitionEncoding(partition, headers, new CsvProductJson(headers, COMPANY, out))]
    expect(items.map((item) => item._tag)).toEqual(["Encoded"])
    out.end()
    const asDecoded = partition.toString("utf8").split("\n")
    const expected = reference({ headers, product: asDecoded[0]!, children: { hierarchiesCsv: [asDecoded[1]!], barcodesCsv: [asDecoded[2]!], attributesCsv: [] } })
    expect(expected).toContain("D\ufffdr")
    expect(Buffer.from(out.written).equals(Buffer.from(expected ?? "", "utf8"))).toBe(true)
  })
})
