// Seeded inputs for the /handle-csv benchmark: the four CSV files of N products (docs/csv-format.md),
// written to benchmarks/.inputs/csv-N-seedS/. Usage: npx tsx benchmarks/csv/generate.ts [--products N] [--seed S]
import { ATTRIBUTE_CSV_COLUMNS, BARCODE_CSV_COLUMNS, csvCell, HIERARCHY_CSV_COLUMNS, PRODUCT_CSV_COLUMNS } from "@retail/testkit"
import { once } from "node:events"
import { createWriteStream, existsSync, mkdirSync, type WriteStream } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export interface CsvInputs {
  readonly productsCsv: string
  readonly hierarchiesCsv: string
  readonly barcodesCsv: string
  readonly attributesCsv: string
}

const here = dirname(fileURLToPath(import.meta.url))

/** mulberry32: small, seeded, deterministic. */
const rng = (seed: number) => {
  let a = seed >>> 0
  return (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = ["acero", "inoxidable", "sartén", "antiadherente", "28cm", "cocina", "hogar", "premium", "café", "molido", "orgánico",
  "zapatilla", "running", "talla", "negro", "algodón", "lámpara", "LED", "12\" pulgadas", "cable", "USB-C", "1,5m", "mochila", "niño"]
const pad = (n: number, width: number): string => String(n).padStart(width, "0")

const writer = (path: string) => {
  const out: WriteStream = createWriteStream(path)
  let buffered: Array<string> = []
  let size = 0
  const flush = async () => {
    if (!out.write(buffered.join(""))) await once(out, "drain")
    buffered = []
    size = 0
  }
  return {
    row: async (columns: ReadonlyArray<string>, row: Readonly<Record<string, unknown>>) => {
      const line = columns.map((c) => csvCell(row[c], ",")).join(",") + "\r\n"
      buffered.push(line)
      size += line.length
      if (size > 1 << 20) await flush()
    },
    close: async () => {
      await flush()
      await new Promise<void>((resolve) => out.end(resolve))
    }
  }
}

export const inputsFor = (products: number, seed: number): CsvInputs => {
  const dir = join(here, "..", ".inputs", `csv-${products}-seed${seed}`)
  return {
    productsCsv: join(dir, "products.csv"),
    hierarchiesCsv: join(dir, "hierarchies.csv"),
    barcodesCsv: join(dir, "barcodes.csv"),
    attributesCsv: join(dir, "attributes.csv")
  }
}

/** Writes the files unless they exist: about 3 hierarchies, 1-2 barcodes and 2-3 attributes per product. */
export const generate = async (products: number, seed = 42): Promise<CsvInputs> => {
  const inputs = inputsFor(products, seed)
  if (existsSync(inputs.attributesCsv)) return inputs
  mkdirSync(dirname(inputs.productsCsv), { recursive: true })
  const r = rng(seed)
  const pick = <T>(xs: ReadonlyArray<T>): T => xs[Math.floor(r() * xs.length)]!
  const words = (k: number): string => Array.from({ length: k }, () => pick(WORDS)).join(" ")
  const [p, h, b, a] = [inputs.productsCsv, inputs.hierarchiesCsv, inputs.barcodesCsv, inputs.attributesCsv].map(writer) as [
    ReturnType<typeof writer>, ReturnType<typeof writer>, ReturnType<typeof writer>, ReturnType<typeof writer>
  ]
  await p.row(PRODUCT_CSV_COLUMNS, Object.fromEntries(PRODUCT_CSV_COLUMNS.map((c) => [c, c])))
  await h.row(HIERARCHY_CSV_COLUMNS, Object.fromEntries(HIERARCHY_CSV_COLUMNS.map((c) => [c, c])))
  await b.row(BARCODE_CSV_COLUMNS, Object.fromEntries(BARCODE_CSV_COLUMNS.map((c) => [c, c])))
  await a.row(ATTRIBUTE_CSV_COLUMNS, Object.fromEntries(ATTRIBUTE_CSV_COLUMNS.map((c) => [c, c])))
  for (let i = 0; i < products; i++) {
    const productCode = `P${pad(i, 9)}`
    const ean = `780${pad(Math.floor(r() * 1e10), 10)}`
    const levels = [1, 2, 3].map((level) => `H${level}${pad(Math.floor(r() * 1e5), 5)}`)
    await p.row(PRODUCT_CSV_COLUMNS, {
      productCode, skuCode: `SKU-${pad(i, 9)}`, eanCode: ean, description: `${words(6)}, modelo ${pad(Math.floor(r() * 1e4), 4)}`,
      price: Math.round(r() * 1e7) / 100, length: Math.round(r() * 1e4) / 100, width: Math.round(r() * 1e4) / 100,
      height: Math.round(r() * 1e4) / 100, weight: Math.round(r() * 5e4) / 1000, productType: pick(["NORMAL", "PERECIBLE", "FRAGIL"]),
      dispatchType: pick(["NORMAL", "EXPRESS", "INTERNATIONAL", null]), unitMeasurement: pick(["UN", "KG", "LT", "ML"]),
      unitedNationsCode: pad(Math.floor(r() * 1e4), 4), hierarchyCode: levels[2], companyCode: null, taxSale: pick(["T", "F"]),
      taxSelective: r() < 0.8 ? null : 10, salesTax: 18, productPmmStatus: "5", dateUpdate: "2026-11-20 10:15:00",
      isEcommerce: pick(["T", "F"]), measurable: pick(["T", "F"]), skuCodePlatform: r() < 0.5 ? null : `VTEX-${i}`,
      conversionFactor: 1 + Math.floor(r() * 24)
    })
    for (const [k, code] of levels.entries()) {
      await h.row(HIERARCHY_CSV_COLUMNS, {
        productCode, hierarchyCode: code, hierarchyLevel: k + 1, hierarchyParent: k === 0 ? null : levels[k - 1],
        hierarchyName: `nivel ${k + 1}`, hierarchyDescription: words(2), hierarchyBreadcrumb: k === 0 ? null : `${words(1)} > ${words(1)}`
      })
    }
    for (let k = 0; k < 1 + Math.floor(r() * 2); k++) {
      await b.row(BARCODE_CSV_COLUMNS, { productCode, eanCode: k === 0 ? ean : `780${pad(Math.floor(r() * 1e10), 10)}`, indicator: k === 0 ? "P" : "S" })
    }
    for (let k = 0; k < 2 + Math.floor(r() * 2); k++) {
      await a.row(ATTRIBUTE_CSV_COLUMNS, {
        productCode, attributeType: pick(["COLOR", "TALLA", "MATERIAL", "MARCA"]), parentAttributeCode: `A${pad(k, 3)}`,
        attributeCode: `A${pad(k, 3)}-${pad(Math.floor(r() * 1e4), 4)}`, attributeDescription: words(3), attributeDescriptionDetail: words(3)
      })
    }
  }
  await Promise.all([p.close(), h.close(), b.close(), a.close()])
  return inputs
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (flag: string) => {
    const i = process.argv.indexOf(flag)
    return i > 0 ? process.argv[i + 1] : undefined
  }
  generate(Number(arg("--products") ?? 200_000), Number(arg("--seed") ?? 42)).then((inputs) => console.log(inputs))
}
