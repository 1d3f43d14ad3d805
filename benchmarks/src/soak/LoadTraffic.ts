import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { type InputFiles, makeProduct, rng } from "../../parsers/generate.ts"
import { BenchmarkFailure } from "../Benchmark.ts"
import { csvParts } from "../suite/HandleCsv.ts"
import { loadAnswer, post } from "../support/Http.ts"
import type { ServerHandle } from "../support/ServerProcess.ts"
import { mintToken, runTag } from "../support/Tokens.ts"
import { type Uploaded, uploadFiles } from "../support/Upload.ts"
import { paced, Tally, timed } from "./Tally.ts"

export type RawProduct = Readonly<Record<string, unknown>>

/** A load the intake accepted: what was sent, so the end check knows what PostgreSQL must hold. */
export interface SentLoad {
  readonly kind: string
  readonly processCode: string
  readonly company: string
  readonly token: string
  readonly products: ReadonlyArray<RawProduct>
  /** Indexes of the products sent invalid on purpose (the answer must fail exactly these). */
  readonly invalid: ReadonlySet<number>
}

interface Body {
  readonly text: string
  readonly products: ReadonlyArray<RawProduct>
  readonly invalid: ReadonlySet<number>
}

/** One product in twenty of a spoiled body is invalid: a price that is not a number, or no SKU. */
const isSpoiled = (index: number) => index % 20 === 3
const spoil = (product: RawProduct, index: number): RawProduct => {
  if (index % 40 === 3) return { ...product, price: "free" }
  const { skuCode: _, ...withoutSku } = product
  return withoutSku
}

const loadProductsBody = (size: number, spoiled: boolean, seed: number): Body => {
  const random = rng(seed)
  const products = Array.from({ length: size }, (_, i) => makeProduct(random, i))
  const sent = products.map((p, i) => (spoiled && isSpoiled(i) ? spoil(p, i) : p))
  const invalid = new Set(spoiled ? sent.flatMap((_, i) => (isSpoiled(i) ? [i] : [])) : [])
  return { text: JSON.stringify({ products: sent }), products: sent, invalid }
}

/**
 * A product as the four CSV files carry it: an empty cell of a child row is an absent field
 * (docs/csv-format.md), so the generator's "" (a level-1 hierarchy's parent) arrives absent.
 */
const asCsvCarriesIt = (product: RawProduct): RawProduct =>
  Object.fromEntries(Object.entries(product).map(([field, value]) => [
    field,
    Array.isArray(value)
      ? value.map((child: unknown) => (typeof child === "object" && child !== null ? Object.fromEntries(Object.entries(child).filter(([, v]) => v !== "")) : child))
      : value
  ]))

const FileProducts = Schema.Struct({ products: Schema.Array(Schema.Record(Schema.String, Schema.Unknown)) })
const decodeFileProducts = Schema.decodeUnknownSync(Schema.fromJsonString(FileProducts), { onExcessProperty: "ignore" })

export interface LoadMix {
  /** /v1/load-products bodies, by request index (cycled); every `spoiledEvery`-th body has invalid products. */
  readonly bodySizes: ReadonlyArray<number>
  readonly spoiledEvery: number
  readonly loadProductsPerSecond: number
  /** Seconds between two file loads of each file endpoint. */
  readonly fileLoadEverySeconds: number
  readonly maxInFlight: number
}

export interface LoadKind {
  readonly tally: Tally
  readonly run: (untilMs: number) => Promise<void>
}

/**
 * The four load endpoints at their steady rates. Every load is sent as its own company (a token
 * per load), so products of different loads never share a key and each load's rows are counted
 * apart in PostgreSQL. Bodies and files are made before the soak: the runner only sends.
 */
export const loadTraffic = (server: ServerHandle, files: InputFiles, mix: LoadMix) => {
  const sent: Array<SentLoad> = []
  const mismatches: Array<string> = []
  const bodies = mix.bodySizes.flatMap((size, i) => [loadProductsBody(size, false, 7 + i), loadProductsBody(size, true, 7 + i)])
  const fileProducts = decodeFileProducts(readFileSync(files.json, "utf8")).products
  const tag = runTag()
  const internalUrl = server.internalUrl()
  if (internalUrl === undefined) throw new BenchmarkFailure(`the server did not log its internal listener: ${server.logTail()}`)

  /** Records an accepted load; a 200 whose failed count is not what was spoiled is a mismatch. */
  const accepted = (tally: Tally, kind: string, company: string, token: string, body: Omit<Body, "text">, status: number, text: string) => {
    if (status !== 200) return
    const answer = loadAnswer(text)
    if (answer === undefined) {
      mismatches.push(`${kind}: a 200 that is not a load answer: ${text.slice(0, 200)}`)
      return
    }
    const failed = answer.failed ?? 0
    if (failed !== body.invalid.size) mismatches.push(`${kind} load ${answer.processCode}: failed ${failed} products, ${body.invalid.size} were sent invalid`)
    tally.acceptedProducts += body.products.length - failed
    sent.push({ kind, processCode: answer.processCode, company, token, products: body.products, invalid: body.invalid })
  }

  const company = (kind: string, index: number) => `SOAK-${tag}-${kind}-${index}`

  const kind = (name: string, perSecond: number, send: (index: number, tally: Tally) => Promise<void>): LoadKind => {
    const tally = new Tally(name)
    return { tally, run: (untilMs) => paced({ perSecond, untilMs, maxInFlight: mix.maxInFlight, tally }, (index) => send(index, tally)) }
  }
  const fileBody = { products: fileProducts, invalid: new Set<number>() }
  const csvBody = { products: fileProducts.map(asCsvCarriesIt), invalid: new Set<number>() }
  const jsonPart = [{ name: "productsJson", file: files.json, contentType: "application/json" }]
  /** A file endpoint: one load every fileLoadEverySeconds, as a company of its own. */
  const fileKind = (endpoint: string, code: string, body: Omit<Body, "text">, upload: (company: string, token: string) => Promise<Uploaded>) =>
    kind(endpoint === "/v1/handle-json-int" ? `${endpoint} (internal listener)` : endpoint, 1 / mix.fileLoadEverySeconds, async (index, tally) => {
      const owner = company(code, index)
      const token = await mintToken(owner)
      const answer = await timed(tally, async () => {
        const uploaded = await upload(owner, token)
        return { status: uploaded.status, text: uploaded.body }
      })
      if (answer !== undefined) accepted(tally, endpoint, owner, token, body, answer.status, answer.text)
    })

  const kinds: ReadonlyArray<LoadKind> = [
    kind("/v1/load-products", mix.loadProductsPerSecond, async (index, tally) => {
      const owner = company("LP", index)
      const token = await mintToken(owner)
      const body = bodies[(index % mix.bodySizes.length) * 2 + (index % mix.spoiledEvery === mix.spoiledEvery - 1 ? 1 : 0)]
      if (body === undefined) throw new BenchmarkFailure(`no /v1/load-products body for request ${index}`)
      const answer = await timed(tally, () => post(`${server.url}/v1/load-products`, body.text, { authorization: `Bearer ${token}` }))
      if (answer !== undefined) accepted(tally, "/v1/load-products", owner, token, body, answer.status, answer.text)
    }),
    fileKind("/v1/handle-json", "HJ", fileBody, (_, token) => uploadFiles(`${server.url}/v1/handle-json`, token, jsonPart)),
    fileKind("/v1/handle-json-int", "HJI", fileBody, (owner) =>
      uploadFiles(`${internalUrl}/v1/handle-json-int`, undefined, jsonPart, [{ name: "company", value: owner }])),
    fileKind("/v1/handle-csv", "CSV", csvBody, (_, token) => uploadFiles(`${server.url}/v1/handle-csv`, token, csvParts(files)))
  ]
  return { kinds, sent, mismatches }
}
