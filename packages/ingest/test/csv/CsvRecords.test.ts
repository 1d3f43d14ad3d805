import { describe, expect, it } from "vitest"
import { Effect, Stream } from "effect"
import { it as effectIt } from "@effect/vitest"
import { AttributesCsv, BarcodesCsv, type CsvLayout, HierarchiesCsv, ProductsCsv } from "../../src/csv/CsvLayout.ts"
import { CsvRecordReader } from "../../src/csv/CsvRecordReader.ts"
import type { CsvRecord } from "../../src/csv/CsvRecords.ts"
import { readCsvRecords } from "../../src/csv/CsvStream.ts"

const encode = (text: string): Uint8Array => new TextEncoder().encode(text)

const records = (layout: CsvLayout, text: string, chunkSize = 0) => {
  const reader = new CsvRecordReader(layout)
  const out: Array<CsvRecord> = []
  const emit = (r: CsvRecord): void => {
    out.push(r)
  }
  const input = encode(text)
  const size = chunkSize || Math.max(1, input.length)
  for (let i = 0; i < input.length; i += size) {
    const error = reader.push(input.subarray(i, i + size), emit)
    if (error !== undefined) return { records: out, error, ignored: reader.ignoredColumns }
  }
  return { records: out, error: reader.end(emit), ignored: reader.ignoredColumns }
}

const productHeader = ProductsCsv.columns.map((c) => c.name).join(",")
const productRow =
  "P1,SKU1,780123,\"Sartén 28cm, acero\",1990.5,28,28,5.5,1.25,NORMAL,,UN,1234,H3,C001,T,,0.19,5,2024-01-02 10:00:00,T,F,PLT1,12"

describe("CSV column layouts", () => {
  it("define the spec's fields, each with productCode", () => {
    expect(ProductsCsv.columns.map((c) => c.name)).toContain("conversionFactor")
    expect(ProductsCsv.columns.some((c) => ["barcodes", "hierarchies", "lstAttributes"].includes(c.name))).toBe(false)
    for (const layout of [HierarchiesCsv, BarcodesCsv, AttributesCsv]) {
      expect(layout.columns.find((c) => c.name === "productCode")?.required).toBe(true)
    }
    expect(ProductsCsv.columns.filter((c) => !c.required).map((c) => c.name)).toEqual([
      "dispatchType", "companyCode", "taxSelective", "salesTax", "skuCodePlatform"
    ])
  })
})

describe("CsvRecordReader header", () => {
  it("names the file and the missing required column", () => {
    const header = productHeader.replace(",price,", ",")
    const r = records(ProductsCsv, `${header}\n`)
    expect(r.error).toMatchObject({ _tag: "CsvHeaderError", file: "productsCsv", column: "price" })
    expect(r.error?.message).toBe('productsCsv header: missing required column "price"')
  })

  it("lists every missing column, the first one in `column`", () => {
    const r = records(BarcodesCsv, "productCode\nP1\n")
    expect(r.error).toMatchObject({ file: "barcodesCsv", column: "eanCode", reason: 'missing required columns "eanCode", "indicator"' })
  })

  it("rejects a column given twice and an empty file", () => {
    expect(records(BarcodesCsv, "productCode,eanCode,indicator,eanCode\n").error).toMatchObject({ column: "eanCode", reason: 'column "eanCode" appears twice' })
    expect(records(AttributesCsv, "").error).toMatchObject({ _tag: "CsvHeaderError", file: "attributesCsv", reason: "the file is empty: a header row is expected" })
  })

  it("ignores unknown columns, reports them, and accepts columns in any order and optional ones left out", () => {
    const r = records(HierarchiesCsv, " hierarchyLevel ;extra;productCode;hierarchyCode\n2;zz;P1;H2\n")
    expect(r.error).toBeUndefined()
    expect(r.ignored).toEqual(["extra"])
    expect(r.records).toEqual([{ file: "hierarchiesCsv", line: 2, values: { hierarchyLevel: 2, productCode: "P1", hierarchyCode: "H2" }, problems: [] }])
  })

  it("gives no records for a header-only file", () => {
    expect(records(BarcodesCsv, "productCode,eanCode,indicator\r\n")).toEqual({ records: [], error: undefined, ignored: [] })
  })
})

describe("CsvRecordReader typing", () => {
  it("types a full product row: strings as-is, numbers, integer, empty nullable cells as null", () => {
    const r = records(ProductsCsv, `${productHeader}\r\n${productRow}\r\n`)
    expect(r.error).toBeUndefined()
    expect(r.records).toHaveLength(1)
    const rec = r.records[0]!
    expect(rec.problems).toEqual([])
    expect(rec.line).toBe(2)
    expect(rec.values).toMatchObject({
      productCode: "P1",
      description: "Sartén 28cm, acero",
      price: 1990.5,
      length: 28,
      height: 5.5,
      dispatchType: null,
      taxSelective: null,
      salesTax: 0.19,
      productPmmStatus: "5",
      conversionFactor: 12,
      unitedNationsCode: "1234"
    })
  })

  it("leaves an empty non-nullable cell absent", () => {
    const r = records(HierarchiesCsv, "productCode,hierarchyCode,hierarchyLevel,hierarchyParent,hierarchyBreadcrumb\nP1,H1,1,,\n")
    expect(r.records[0]?.values).toEqual({ productCode: "P1", hierarchyCode: "H1", hierarchyLevel: 1, hierarchyBreadcrumb: null })
    expect("hierarchyParent" in (r.records[0]?.values ?? {})).toBe(false)
  })

  it("records a problem naming file, line and column for a cell that is not its field's type", () => {
    const text = "productCode,hierarchyCode,hierarchyLevel\nP1,H1,1.5\nP2,H2,x\nP3,H3,99999999999999999999\nP4,H4, 7 \n"
    const r = records(HierarchiesCsv, text)
    expect(r.error).toBeUndefined()
    expect(r.records.map((x) => x.problems)).toEqual([
      [{ file: "hierarchiesCsv", line: 2, column: "hierarchyLevel", reason: '"1.5" is not an integer' }],
      [{ file: "hierarchiesCsv", line: 3, column: "hierarchyLevel", reason: '"x" is not an integer' }],
      [{ file: "hierarchiesCsv", line: 4, column: "hierarchyLevel", reason: '"99999999999999999999" is outside the exact integer range (±2^53)' }],
      []
    ])
    expect(r.records[3]?.values.hierarchyLevel).toBe(7)
    expect("hierarchyLevel" in (r.records[0]?.values ?? {})).toBe(false)
  })

  it("parses numbers strictly: rejects 12abc, accepts a decimal comma only in ; files", () => {
    const header = "productCode;skuCode;eanCode;description;price;length;width;height;weight;productType;unitMeasurement;unitedNationsCode;hierarchyCode;taxSale;productPmmStatus;dateUpdate;isEcommerce;measurable;conversionFactor"
    const row = (price: string) => `P1;S;E;D;${price};1;2;3;4;T;UN;1;H;T;5;d;T;F;1`
    const r = records(ProductsCsv, `${header}\n${row("12abc")}\n${row("1990,5")}\n${row("-1.5e2")}\n${row("0x10")}\n`)
    expect(r.records.map((x) => x.values.price)).toEqual([undefined, 1990.5, -150, undefined])
    expect(r.records[0]?.problems).toEqual([{ file: "productsCsv", line: 2, column: "price", reason: '"12abc" is not a number' }])
    expect(r.records[3]?.problems[0]?.reason).toBe('"0x10" is not a number')
    const comma = records(BarcodesCsv, "productCode,eanCode,indicator\nP1,E,1\n")
    expect(comma.records[0]?.problems).toEqual([])
  })

  it("records a ragged row against its file and line, after multi-line quoted cells", () => {
    const text = 'productCode,eanCode,indicator\nP1,"E\n1",P\nP2,E2\nP3,E3,S,extra\nP4,"E"4,S\n'
    const r = records(BarcodesCsv, text)
    expect(r.records.map((x) => [x.line, x.problems.map((p) => p.reason)])).toEqual([
      [2, []],
      [4, ["the row has 2 fields, the header has 3"]],
      [5, ["the row has 4 fields, the header has 3"]],
      [6, ['unexpected "4" after the closing quote of field 2']]
    ])
    expect(r.records[1]?.values).toEqual({ productCode: "P2", eanCode: "E2" })
  })

  it("gives the same records for every chunk size", () => {
    const text = `\ufeff${productHeader}\r\n${productRow}\r\n${productRow.replace("P1", "P2")}\r\n`
    const whole = records(ProductsCsv, text)
    for (let size = 1; size <= 40; size++) expect(records(ProductsCsv, text, size)).toEqual(whole)
  })
})

describe("readCsvRecords", () => {
  const bytes = (text: string, size: number): Stream.Stream<Uint8Array> => {
    const input = encode(text)
    const parts: Array<Uint8Array> = []
    for (let i = 0; i < input.length; i += size) parts.push(input.subarray(i, i + size))
    return Stream.fromIterable(parts)
  }

  effectIt.effect("streams typed records", () =>
    Effect.gen(function* () {
      const out = yield* bytes("productCode;eanCode;indicator\nP1;E1;P\nP2;E2;S", 5).pipe(readCsvRecords(BarcodesCsv), Stream.runCollect)
      expect(out.map((r) => [r.line, r.values.productCode])).toEqual([[2, "P1"], [3, "P2"]])
    }))

  effectIt.effect("fails with CsvHeaderError on a bad header and CsvSyntaxError on an unclosed quote", () =>
    Effect.gen(function* () {
      const header = yield* bytes("productCode,eanCode\nP1,E1\n", 4).pipe(readCsvRecords(BarcodesCsv), Stream.runDrain, Effect.flip)
      expect(header._tag).toBe("CsvHeaderError")
      const syntax = yield* bytes('productCode,eanCode,indicator\nP1,"E1,S\n', 4).pipe(readCsvRecords(BarcodesCsv), Stream.runDrain, Effect.flip)
      expect(syntax).toMatchObject({ _tag: "CsvSyntaxError", file: "barcodesCsv", line: 2 })
    }))
})
