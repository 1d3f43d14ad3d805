import { createWriteStream, existsSync, mkdirSync, writeFileSync, type WriteStream } from "node:fs"
import { once } from "node:events"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/** Generated inputs live outside the repository (hundreds of MB); BENCH_INPUTS_DIR moves them. */
export const inputsDir = process.env["BENCH_INPUTS_DIR"] ?? join(tmpdir(), "retail-logistics-bench")

/** mulberry32: small, seeded, deterministic. */
export const rng = (seed: number) => {
  let a = seed >>> 0
  return (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = [
  "acero", "inoxidable", "sartén", "antiadherente", "28cm", "cocina", "hogar", "premium", "set", "bowl", "vidrio",
  "templado", "café", "molido", "orgánico", "500g", "zapatilla", "running", "hombre", "mujer", "talla", "color",
  "negro", "azul", "algodón", "polera", "manga", "corta", "lámpara", "LED", "escritorio", "12\" pulgadas",
  "cable", "USB-C", "carga", "rápida", "1,5m", "mochila", "urbana", "impermeable", "niño", "juguete", "bloques"
]
const CATEGORIES = ["Hogar", "Cocina", "Deportes", "Vestuario", "Electro", "Tecnología", "Juguetería", "Mascotas", "Jardín"]

const pad = (n: number, width: number): string => String(n).padStart(width, "0")

export interface GenProduct {
  readonly [key: string]: unknown
  readonly productCode: string
  readonly barcodes: ReadonlyArray<Record<string, string>>
  readonly hierarchies: ReadonlyArray<Record<string, string | number | null>>
  readonly lstAttributes: ReadonlyArray<Record<string, string>>
}

export const makeProduct = (r: () => number, i: number): GenProduct => {
  const pick = <T>(xs: ReadonlyArray<T>): T => xs[Math.floor(r() * xs.length)]!
  const words = (k: number): string => Array.from({ length: k }, () => pick(WORDS)).join(" ")
  const code = `P${pad(i, 9)}`
  const ean = `780${pad(Math.floor(r() * 1e10), 10)}`
  const cat = pick(CATEGORIES)
  const hierarchies = [1, 2, 3].map((level) => ({
    hierarchyCode: `H${level}${pad(Math.floor(r() * 1e5), 5)}`,
    hierarchyLevel: level,
    hierarchyParent: level === 1 ? "" : `H${level - 1}${pad(Math.floor(r() * 1e5), 5)}`,
    hierarchyName: `${cat} nivel ${level}`,
    hierarchyDescription: words(2),
    hierarchyBreadcrumb: level === 1 ? null : `${cat} > ${words(1)} > ${words(1)}`
  }))
  const barcodes = Array.from({ length: 1 + Math.floor(r() * 2) }, (_, k) => ({
    productCode: code,
    eanCode: k === 0 ? ean : `780${pad(Math.floor(r() * 1e10), 10)}`,
    indicator: k === 0 ? "P" : "S"
  }))
  const lstAttributes = Array.from({ length: 2 + Math.floor(r() * 2) }, (_, k) => ({
    attributeType: pick(["COLOR", "TALLA", "MATERIAL", "MARCA", "GARANTIA"]),
    parentAttributeCode: `A${pad(k, 3)}`,
    attributeCode: `A${pad(k, 3)}-${pad(Math.floor(r() * 1e4), 4)}`,
    attributeDescription: words(3),
    productCode: code,
    attributeDescriptionDetail: words(3)
  }))
  return {
    productCode: code,
    skuCode: `SKU-${pad(i, 9)}`,
    eanCode: ean,
    description: `${words(6)}, modelo ${pad(Math.floor(r() * 1e4), 4)}`,
    price: Math.round(r() * 1e7) / 100,
    length: Math.round(r() * 1e4) / 100,
    width: Math.round(r() * 1e4) / 100,
    height: Math.round(r() * 1e4) / 100,
    weight: Math.round(r() * 5e4) / 1000,
    productType: pick(["NORMAL", "PERECIBLE", "FRAGIL"]),
    dispatchType: pick(["NORMAL", "EXPRESS", "INTERNATIONAL", null]),
    unitMeasurement: pick(["UN", "KG", "LT", "ML"]),
    unitedNationsCode: pad(Math.floor(r() * 1e4), 4),
    hierarchyCode: hierarchies[2]!.hierarchyCode,
    // No company of its own: the load's company (the caller's token) applies, so one file serves any company.
    companyCode: null,
    taxSale: pick(["T", "F"]),
    taxSelective: r() < 0.5 ? null : 0.1,
    salesTax: 0.19,
    productPmmStatus: "5",
    dateUpdate: `2024-0${1 + Math.floor(r() * 9)}-1${Math.floor(r() * 10)} 1${Math.floor(r() * 10)}:2${Math.floor(r() * 10)}:00`,
    isEcommerce: pick(["T", "F"]),
    measurable: pick(["T", "F"]),
    skuCodePlatform: r() < 0.3 ? null : `PLT-${pad(i, 8)}`,
    conversionFactor: pick([1, 6, 12, 24]),
    barcodes,
    hierarchies,
    lstAttributes
  }
}

export const PRODUCT_COLUMNS = [
  "productCode", "skuCode", "eanCode", "description", "price", "length", "width", "height", "weight", "productType",
  "dispatchType", "unitMeasurement", "unitedNationsCode", "hierarchyCode", "companyCode", "taxSale", "taxSelective",
  "salesTax", "productPmmStatus", "dateUpdate", "isEcommerce", "measurable", "skuCodePlatform", "conversionFactor"
] as const
const HIERARCHY_COLUMNS = ["productCode", "hierarchyCode", "hierarchyLevel", "hierarchyParent", "hierarchyName", "hierarchyDescription", "hierarchyBreadcrumb"] as const
const BARCODE_COLUMNS = ["productCode", "eanCode", "indicator"] as const
const ATTRIBUTE_COLUMNS = ["productCode", "attributeType", "parentAttributeCode", "attributeCode", "attributeDescription", "attributeDescriptionDetail"] as const

const cell = (v: unknown): string => {
  if (v === null || v === undefined) return ""
  const s = String(v)
  return /[",\n\r]/.test(s) ? `"${s.replaceAll("\"", "\"\"")}"` : s
}
const csvLine = (cols: ReadonlyArray<string>, row: Record<string, unknown>): string => cols.map((c) => cell(row[c])).join(",") + "\r\n"

const write = async (out: WriteStream, text: string): Promise<void> => {
  if (!out.write(text)) await once(out, "drain")
}
const close = (out: WriteStream): Promise<void> => new Promise((resolve) => out.end(resolve))

export interface InputFiles {
  readonly json: string
  readonly productsCsv: string
  readonly hierarchiesCsv: string
  readonly barcodesCsv: string
  readonly attributesCsv: string
}

export const inputFiles = (n: number, seed = 42): InputFiles => ({
  json: join(inputsDir, `products-${n}-s${seed}.json`),
  productsCsv: join(inputsDir, `products-${n}-s${seed}.csv`),
  hierarchiesCsv: join(inputsDir, `hierarchies-${n}-s${seed}.csv`),
  barcodesCsv: join(inputsDir, `barcodes-${n}-s${seed}.csv`),
  attributesCsv: join(inputsDir, `attributes-${n}-s${seed}.csv`)
})

const doneMarker = (n: number, seed: number): string => join(inputsDir, `.done-${n}-s${seed}`)

/** The files of `n` products with this seed, generated once (a marker written last tells complete files from interrupted ones). */
export const ensureInputs = async (n: number, seed = 42): Promise<InputFiles> =>
  existsSync(doneMarker(n, seed)) ? inputFiles(n, seed) : generate(n, seed)

/** Writes products-N.json ({"products":[...]}, one product per line) and the four CSV files in the layout of packages/ingest (CsvLayout.ts). */
export const generate = async (n: number, seed = 42): Promise<InputFiles> => {
  const files = inputFiles(n, seed)
  mkdirSync(dirname(files.json), { recursive: true })
  const json = createWriteStream(files.json)
  const csv = {
    p: createWriteStream(files.productsCsv),
    h: createWriteStream(files.hierarchiesCsv),
    b: createWriteStream(files.barcodesCsv),
    a: createWriteStream(files.attributesCsv)
  }
  await write(json, "{\"source\":\"benchmark\",\"products\":[\n")
  await write(csv.p, PRODUCT_COLUMNS.join(",") + "\r\n")
  await write(csv.h, HIERARCHY_COLUMNS.join(",") + "\r\n")
  await write(csv.b, BARCODE_COLUMNS.join(",") + "\r\n")
  await write(csv.a, ATTRIBUTE_COLUMNS.join(",") + "\r\n")
  const r = rng(seed)
  for (let i = 0; i < n; i++) {
    const p = makeProduct(r, i)
    await write(json, (i === 0 ? "" : ",\n") + JSON.stringify(p))
    await write(csv.p, csvLine(PRODUCT_COLUMNS, p))
    for (const h of p.hierarchies) await write(csv.h, csvLine(HIERARCHY_COLUMNS, { ...h, productCode: p.productCode }))
    for (const b of p.barcodes) await write(csv.b, csvLine(BARCODE_COLUMNS, b))
    for (const a of p.lstAttributes) await write(csv.a, csvLine(ATTRIBUTE_COLUMNS, a))
  }
  await write(json, "\n],\"generatedBy\":\"benchmarks/parsers/generate.ts\"}\n")
  await Promise.all([close(json), close(csv.p), close(csv.h), close(csv.b), close(csv.a)])
  writeFileSync(doneMarker(n, seed), new Date().toISOString())
  return files
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--products")
  const n = i > 0 ? Number(process.argv[i + 1]) : 1000
  generate(n).then((f) => console.log(f))
}
