/**
 * In-process cost of validating one product: `npx tsx benchmarks/validation/run.ts [--products 20000] [--seed 7]`.
 * Inputs are `sampleProduct`s (about 1.6 KB of JSON each), re-parsed from JSON so every product is a fresh object as
 * it is on the endpoints; the "10% invalid" set breaks one field of every tenth product, chosen by a seeded generator.
 */
import { Result, Schema } from "effect"
import { makeFastDecoder, Product, validateProduct, validateProductWithSchema } from "@retail/domain"
import { sampleProduct } from "@retail/testkit"

const argument = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`)
  const value = at === -1 ? undefined : process.argv[at + 1]
  return value === undefined ? fallback : Number(value)
}

const count = argument("products", 20000)
const rounds = argument("rounds", 5)
let seed = argument("seed", 7)
const random = (): number => {
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
}

const breakages: ReadonlyArray<(p: Record<string, unknown>) => void> = [
  (p) => { delete p["skuCode"] },
  (p) => { p["price"] = -1 },
  (p) => { p["description"] = "" },
  (p) => { p["dateUpdate"] = "2026-02-30 10:00:00" },
  (p) => { p["unitMeasurement"] = "BOX" },
  (p) => { p["conversionFactor"] = 1.5 },
  (p) => { p["hierarchies"] = [] },
  (p) => { p["barcodes"] = [{ productCode: "OTHER", eanCode: "1", indicator: "MAIN" }] }
]

const inputs = (invalidShare: number): ReadonlyArray<string> =>
  Array.from({ length: count }, (_, i) => {
    const product: Record<string, unknown> = { ...sampleProduct(i) }
    if (i % Math.round(1 / invalidShare) === 0) breakages[Math.floor(random() * breakages.length)]?.(product)
    return JSON.stringify(product)
  })

const is = Schema.is(Product)
const decodeFirst = Schema.decodeUnknownResult(Product, { errors: "first", onExcessProperty: "ignore" })
const validateFirst = Schema.decodeUnknownResult(Schema.toType(Product), { errors: "first", onExcessProperty: "ignore" })
const fast = makeFastDecoder(Product)

const candidates: ReadonlyArray<readonly [string, (raw: unknown) => unknown]> = [
  ["validateProductWithSchema (before)", validateProductWithSchema],
  ["Schema.is(Product) alone (no output)", is],
  ["decodeUnknownResult errors:first alone", decodeFirst],
  ["decodeUnknownResult(toType) errors:first alone", validateFirst],
  ["makeFastDecoder(Product) alone", fast],
  ["validateProduct (after)", validateProduct]
]

/**
 * CPU µs (user + system) per product, best of `rounds`: the machine is shared, so wall time mostly measures the
 * other tenants; CPU time of this process is the fairer figure and the best round the least disturbed.
 */
const measure = (run: (raw: unknown) => unknown, json: ReadonlyArray<string>): number => {
  const parsed = json.map((text): unknown => JSON.parse(text))
  let best = Infinity
  for (let round = 0; round < rounds; round++) {
    const started = process.cpuUsage()
    let sink = 0
    for (const raw of parsed) if (run(raw) !== undefined) sink++
    const used = process.cpuUsage(started)
    if (sink < 0) throw new Error("unreachable")
    best = Math.min(best, (used.user + used.system) / parsed.length)
  }
  return best
}

const valid = inputs(0.0000001)
const tenPercent = inputs(0.1)
const rejected = tenPercent.filter((text) => Result.isFailure(validateProductWithSchema(JSON.parse(text)))).length
console.log(`${count} products, ${(valid.reduce((n, t) => n + t.length, 0) / count).toFixed(0)} bytes each, ${rejected} of the 10% set rejected; best of ${rounds} rounds`)
console.log("| candidate | CPU µs/product, all valid | CPU µs/product, 10% invalid |")
console.log("|---|---:|---:|")
for (const [name, run] of candidates) {
  run(JSON.parse(valid[0] ?? "{}"))
  console.log(`| ${name} | ${measure(run, valid).toFixed(2)} | ${measure(run, tenPercent).toFixed(2)} |`)
}
