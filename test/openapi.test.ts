import { describe, expect, layer } from "@effect/vitest"
import { createConfig, lintFromString } from "@redocly/openapi-core"
import { demoNetwork } from "@retail/capacity"
import { sampleProduct } from "@retail/testkit"
import { Effect } from "effect"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import openapiTS, { astToString } from "openapi-typescript"
import ts from "typescript"
import { type HttpResult, internalRequest, request } from "./support/Http.ts"
import { mintToken, TestServer } from "./support/TestServer.ts"

const KEY = "test-openapi-key"
const SERVERS = "https://api.example.test, https://qa-api.example.test/"
const key = { authorization: `Bearer ${KEY}` }
const json = { "content-type": "application/json" }

interface Schema {
  readonly $ref?: string
  readonly type?: string
  readonly format?: string
  readonly items?: Schema
  readonly maxItems?: number
  readonly minItems?: number
  readonly properties?: Readonly<Record<string, Schema>>
  readonly required?: ReadonlyArray<string>
  readonly allOf?: ReadonlyArray<Schema>
}
interface Operation {
  readonly operationId: string
  readonly security: ReadonlyArray<Readonly<Record<string, ReadonlyArray<string>>>>
  readonly parameters: ReadonlyArray<{ readonly name: string; readonly in: string; readonly schema: Schema }>
  readonly requestBody?: { readonly content: Readonly<Record<string, { readonly schema: Schema }>> }
  readonly responses: Readonly<Record<string, { readonly content?: Readonly<Record<string, { readonly schema: Schema }>> }>>
}
interface Document {
  readonly info: { readonly description?: string }
  readonly servers: ReadonlyArray<{ readonly url: string }>
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>
  readonly components: {
    readonly schemas: Readonly<Record<string, Schema>>
    readonly securitySchemes: Readonly<Record<string, unknown>>
  }
}

/** A variant A item and a variant B request from an origin the network does not have: 404 in each variant's format. */
const NO_ROUTE_A = {
  origin: "CD-NOWHERE", entityType: "CD", skuCode: "SKU-TV-55-4K", zone: "", dispatchType: "NORMAL", quantity: 1,
  destination: "150122", latitude: -12.12, longitude: -77.03, deliveryMode: "HOME_DELIVERY"
}
const NO_ROUTE_B = {
  purchaseDate: "2027-03-01", saleChannel: "WEB",
  deliveryData: { latitude: -12.1219, longitude: -77.0297, ubigeoCode: "150122", destination: "Av. Larco 345" },
  items: [{ skuCode: "SKU-TV-55-4K", origin: "CD-NOWHERE", quantity: 1, weight: 20 }]
}

/** The script effect embeds for HttpApiScalar.layer, imported by file (the subpath is not exported). */
const embeddedScalarScript = Effect.promise(async () => {
  const file = join(dirname(createRequire(import.meta.url).resolve("effect/package.json")), "dist/http-api/internal/httpApiScalar.js")
  const module: { readonly javascript: string } = await import(pathToFileURL(file).href)
  return module.javascript
})

const documentOf = (response: HttpResult): Document => {
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toMatch(/^application\/json/)
  return response.json() as Document
}

const publicDocument = Effect.map(request("/v1/openapi.json"), documentOf)
const internalDocument = Effect.map(internalRequest("/v1/openapi.json"), documentOf)

const operationOf = (document: Document, method: string, path: string): Operation => {
  const operation = document.paths[path]?.[method]
  if (operation === undefined) throw new Error(`${method.toUpperCase()} ${path} is not in the document`)
  return operation
}

const mediaType = (contentType: string | null): string | null => contentType?.split(";")[0]?.trim().toLowerCase() ?? null

/** An answer of the server checked against what the document says that operation answers with that status. */
const expectDocumented = (document: Document, method: string, path: string, response: HttpResult) => {
  const documented = operationOf(document, method, path).responses[String(response.status)]
  const where = `${method.toUpperCase()} ${path} ${response.status} ${response.text.slice(0, 200)}`
  expect(documented, `${where}: status not documented`).toBeDefined()
  const sent = response.text === "" ? null : mediaType(response.headers.get("content-type"))
  const mediaTypes = Object.keys(documented?.content ?? {})
  if (sent === null) {
    expect(mediaTypes, `${where}: an empty body, documented with content`).toEqual([])
    return
  }
  expect(mediaTypes, `${where}: sent as ${sent}`).toContain(sent)
  const schema = documented?.content?.[sent]?.schema
  if (schema?.$ref === "#/components/schemas/ErrorMessage") {
    expect(Object.keys(response.json() as object), where).toEqual(["message"])
  }
}

// One server for the whole file: the documents, the reference page and the error bodies.
describe("the contract as a client sees it", () => {
  layer(
    TestServer({ CAPACITY_API_KEYS: KEY, OPENAPI_SERVERS: SERVERS, REQUEST_MAX_BYTES: "2048" }),
    { timeout: 120_000, excludeTestServices: true }
  )((it) => {
    it.effect("describes a product with every constraint the validation applies, and at most 3000 of them", () =>
      Effect.gen(function*() {
        const { components, paths } = yield* publicDocument
        const body = paths["/v1/load-products"]?.["post"]?.requestBody?.content["application/json"]?.schema
        expect(body).toEqual({ $ref: "#/components/schemas/ProductsList" })
        const products = components.schemas["ProductsList"]?.properties?.["products"]
        expect(products).toMatchObject({ type: "array", maxItems: 3000, items: { $ref: "#/components/schemas/Product" } })
        const product = components.schemas["Product"]!
        expect(product.required).toEqual(expect.arrayContaining([
          "productCode", "skuCode", "eanCode", "description", "price", "unitMeasurement", "dateUpdate", "barcodes", "hierarchies", "lstAttributes"
        ]))
        expect(product.properties?.["productCode"]).toMatchObject({ type: "string", maxLength: 100, allOf: [{ minLength: 1 }] })
        expect(product.properties?.["price"]).toMatchObject({ type: "number", allOf: [{ minimum: 0 }] })
        expect(product.properties?.["unitMeasurement"]).toMatchObject({ enum: ["UN", "KG", "LT", "ML"] })
        expect(product.properties?.["barcodes"]).toMatchObject({ items: { $ref: "#/components/schemas/Barcode" } })
        expect(product.properties?.["hierarchies"]).toMatchObject({ minItems: 1, items: { $ref: "#/components/schemas/Hierarchy" } })
        expect(product.properties?.["lstAttributes"]).toMatchObject({ items: { $ref: "#/components/schemas/Attribute" } })
        expect(components.schemas["Hierarchy"]?.properties?.["hierarchyLevel"]).toMatchObject({
          type: "integer",
          allOf: [{ minimum: -2147483648, maximum: 2147483647 }]
        })
        expect(components.schemas["Attribute"]?.required).toContain("attributeCode")
      }))

    it.effect("declares capacity's API key, typed query parameters, single binary file parts, only the statuses sent, and the configured servers", () =>
      Effect.gen(function*() {
        const document = yield* publicDocument
        expect(document.servers).toEqual([{ url: "https://api.example.test" }, { url: "https://qa-api.example.test" }])
        expect(operationOf(document, "post", "/v1/delivery/capacity").security).toEqual([{ apiKey: [] }])
        expect(Object.keys(document.components.securitySchemes)).toContain("apiKey")
        const limit = operationOf(document, "get", "/v1/loads/{processCode}/errors").parameters.find((p) => p.name === "limit")
        expect(limit?.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 1000 })
        for (const [path, parts] of [
          ["/v1/handle-json", ["productsJson"]],
          ["/v1/handle-csv", ["productsCsv", "hierarchiesCsv", "barcodesCsv", "attributesCsv"]]
        ] as const) {
          const schema = operationOf(document, "post", path).requestBody?.content["multipart/form-data"]?.schema
          for (const part of parts) expect(schema?.properties?.[part], `${path} ${part}`).toEqual({ type: "string", format: "binary" })
        }
        expect(Object.keys(operationOf(document, "get", "/health").responses)).toEqual(["200"])
        // Only the two capacity endpoints with a body count its JSON values and check its media type.
        for (const [method, path] of [["get", "/v1/network"], ["get", "/v1/network/changes"], ["delete", "/v1/delivery/capacity/consumptions/{orderId}"], ["get", "/v1/delivery/capacity/nodes/{code}"]] as const) {
          expect(Object.keys(operationOf(document, method, path).responses), `${method} ${path}`).not.toContain("413")
          expect(Object.keys(operationOf(document, method, path).responses), `${method} ${path}`).not.toContain("415")
        }
        for (const [method, path] of [["put", "/v1/network"], ["post", "/v1/delivery/capacity/consumptions"], ["post", "/v1/stock/changes"], ["post", "/v1/network/changes"]] as const) {
          expect(Object.keys(operationOf(document, method, path).responses), `${method} ${path}`).toEqual(expect.arrayContaining(["408", "413", "415"]))
        }
        const tooMany = Object.values(document.paths).flatMap((item) => Object.values(item)).map((operation) => operation.responses["429"])
          .filter((response) => response !== undefined)
        expect(tooMany.length).toBeGreaterThan(5)
        for (const response of tooMany) expect(response, "every 429 says when to retry").toMatchObject({ headers: { "Retry-After": { required: true } } })
        expect(components(document, "ErrorMessage")).toEqual({
          type: "object",
          properties: { message: { type: "string" } },
          required: ["message"],
          additionalProperties: false,
          description: expect.any(String)
        })
        expect(JSON.stringify(document.components.schemas)).not.toContain("_tag")
      }))

    it.effect("every error is documented with the media type and shape the server really sends", () =>
      Effect.gen(function*() {
        const document = yield* publicDocument
        const token = yield* mintToken()
        const loaded = yield* request("/v1/load-products", { token, headers: json, body: JSON.stringify({ products: [sampleProduct(1, { prefix: `OA${crypto.randomUUID().slice(0, 8)}-` })] }) })
        expectDocumented(document, "post", "/v1/load-products", loaded)
        const { processCode } = loaded.json() as { readonly processCode: string }
        const cases: ReadonlyArray<readonly [string, string, string, Parameters<typeof request>[1]]> = [
          ["post", "/v1/delivery/capacity", "/v1/delivery/capacity", { headers: json, body: "{}" }],
          ["post", "/v1/delivery/capacity", "/v1/delivery/capacity", { headers: { ...key, "content-type": "text/plain" }, body: "{}" }],
          ["post", "/v1/delivery/capacity", "/v1/delivery/capacity", { headers: { ...key, ...json }, body: JSON.stringify({ purchaseDate: "2027-03-01", items: [{ origin: "CD-LURIN" }] }) }],
          ["post", "/v1/delivery/capacity", "/v1/delivery/capacity", { headers: { ...key, ...json }, body: JSON.stringify({ purchaseDate: "2027-03-01", saleChannel: "WEB", items: [] }) }],
          ["post", "/v1/delivery/capacity", "/v1/delivery/capacity", { headers: { ...key, ...json }, body: JSON.stringify({ purchaseDate: "2027-03-01", items: [NO_ROUTE_A] }) }],
          ["post", "/v1/delivery/capacity", "/v1/delivery/capacity", { headers: { ...key, ...json }, body: JSON.stringify(NO_ROUTE_B) }],
          ["post", "/v1/load-products", "/v1/load-products", { headers: json, body: "{}" }],
          ["post", "/v1/load-products", "/v1/load-products", { token, headers: json, body: "{not json" }],
          ["post", "/v1/load-products", "/v1/load-products", { token, headers: { "content-type": "text/plain" }, body: "{}" }],
          ["post", "/v1/handle-json", "/v1/handle-json", { token, headers: json, body: "{}" }],
          ["get", "/v1/loads/{processCode}", `/v1/loads/${crypto.randomUUID()}`, { token }],
          ["get", "/v1/loads/{processCode}/errors", `/v1/loads/${processCode}/errors?limit=many`, { token }],
          ["get", "/v1/network", "/v1/network", {}],
          ["put", "/v1/network", "/v1/network", { method: "PUT", headers: { ...key, ...json }, body: JSON.stringify({ nodes: "none" }) }],
          ["post", "/v1/delivery/capacity/consumptions", "/v1/delivery/capacity/consumptions", { headers: { ...key, ...json }, body: "{}" }],
          ["post", "/v1/delivery/capacity/consumptions", "/v1/delivery/capacity/consumptions", { headers: { ...key, ...json }, body: "{not json" }],
          ["delete", "/v1/delivery/capacity/consumptions/{orderId}", "/v1/delivery/capacity/consumptions/no-such-order", { method: "DELETE", headers: key }],
          ["get", "/v1/delivery/capacity/nodes/{code}", "/v1/delivery/capacity/nodes/NO-SUCH-NODE?from=2027-03-01&to=2027-03-02", { headers: key }],
          ["get", "/v1/delivery/capacity/nodes/{code}", "/v1/delivery/capacity/nodes/CD-LURIN?from=soon&to=2027-03-02", { headers: key }],
          ["post", "/v1/stock/changes", "/v1/stock/changes", { headers: { ...key, ...json }, body: JSON.stringify({ sequence: -1, changes: [] }) }],
          ["get", "/v1/stock/{sku}", "/v1/stock/SKU-TV-55-4K", { headers: json }],
          ["post", "/v1/network/changes", "/v1/network/changes", { headers: { ...key, ...json }, body: JSON.stringify({ sequence: 1, changes: [{ kind: "HOLIDAY", node: "NO-SUCH-NODE", date: "2027-03-01", holiday: true }] }) }],
          ["get", "/v1/network/changes", "/v1/network/changes", {}],
          ["get", "/health", "/health", {}]
        ]
        const statuses: Array<number> = []
        for (const [method, path, url, options] of cases) {
          const response = yield* request(url, options)
          statuses.push(response.status)
          expectDocumented(document, method, path, response)
        }
        // The cases reach the statuses they are about (a case answered otherwise would check something else).
        expect(statuses, JSON.stringify(statuses)).toEqual([401, 415, 400, 400, 404, 404, 401, 400, 415, 415, 404, 400, 401, 400, 400, 400, 404, 404, 400, 400, 401, 400, 401, 200])
      }))

    it.effect("the internal endpoint has its own document on the internal listener, and the public one says where", () =>
      Effect.gen(function*() {
        const internal = yield* internalDocument
        expect(Object.keys(internal.paths)).toEqual(["/v1/handle-json-int"])
        const parts = operationOf(internal, "post", "/v1/handle-json-int").requestBody?.content["multipart/form-data"]?.schema
        expect(parts).toMatchObject({ required: ["company", "productsJson"], properties: { productsJson: { type: "string", format: "binary" } } })
        const publicOne = yield* publicDocument
        expect(Object.keys(publicOne.paths)).not.toContain("/v1/handle-json-int")
        expect(publicOne.info.description).toContain("/v1/handle-json-int")
        expect(publicOne.info.description).toContain("INTERNAL_HOST:INTERNAL_PORT")
        expect((yield* request("/v1/openapi.json")).text).not.toBe((yield* internalRequest("/v1/openapi.json")).text)
      }))

    it.effect("both documents have no error under Redocly's recommended rules", () =>
      Effect.gen(function*() {
        const config = yield* Effect.promise(() => createConfig({ extends: ["recommended"] }))
        for (const [name, document] of [["public", yield* publicDocument], ["internal", yield* internalDocument]] as const) {
          const problems = yield* Effect.promise(() =>
            lintFromString({ source: JSON.stringify(document), absoluteRef: `/${name}/openapi.json`, config })
          )
          const errors = problems
            .filter((problem) => problem.severity === "error")
            .map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? "?"}`)
          expect(errors, name).toEqual([])
        }
      }))

    // GET /v1/docs: the API reference page renders without the internet.
    it.effect("the page loads Scalar's script from this server, and that script is the installed package's, whole", () =>
      Effect.gen(function*() {
        const page = yield* request("/v1/docs")
        expect(page.status).toBe(200)
        expect(page.headers.get("content-type")).toMatch(/^text\/html/)
        const sources = [...page.text.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((match) => match[1]!)
        expect(sources).toEqual(["docs/scalar.js"])
        expect(page.text).not.toMatch(/jsdelivr|unpkg|fonts\.scalar/)
        expect(page.text).toContain("\"openapi\":\"3.1.0\"")

        const script = yield* request(new URL(sources[0]!, "http://server/v1/docs").pathname)
        expect(script.status).toBe(200)
        expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
        expect(script.text.length).toBeGreaterThan(1_000_000)
        expect(script.text).toBe(yield* embeddedScalarScript)
        expect(script.text).toContain("createApiReference")
      }))

    // Error bodies are the spec's ErrorMessage, {message} and nothing else.
    it.effect("each error class of the contract answers {message} without _tag", () =>
      Effect.gen(function*() {
        const token = yield* mintToken()
        const answers = [
          yield* request("/v1/load-products", { token, headers: json, body: JSON.stringify({ products: "none" }) }),
          yield* request(`/v1/loads/${crypto.randomUUID()}`, { token }),
          yield* request("/v1/load-products", { token, headers: { "content-type": "text/csv" }, body: "a,b" }),
          yield* request("/v1/network", { method: "PUT", headers: { ...key, ...json }, body: JSON.stringify({ pad: "x".repeat(4096) }) }),
          yield* request("/v1/delivery/capacity/consumptions/no-such-order", { method: "DELETE", headers: key })
        ]
        expect(answers.map((answer) => answer.status)).toEqual([400, 404, 415, 413, 404])
        for (const answer of answers) {
          expect(answer.headers.get("content-type"), answer.text).toMatch(/^application\/json/)
          expect(Object.keys(answer.json() as object), answer.text).toEqual(["message"])
        }
      }))

    it.effect("PUT /v1/network and the consumptions read JSON bodies only, as every JSON endpoint: 415 {message}, as documented", () =>
      Effect.gen(function*() {
        const document = yield* publicDocument
        for (const [method, path, contentType] of [
          ["put", "/v1/network", "text/plain"],
          ["post", "/v1/delivery/capacity/consumptions", "text/plain"],
          ["post", "/v1/delivery/capacity/consumptions", "application/json; charset=latin1"]
        ] as const) {
          const answer = yield* request(path, { method: method.toUpperCase(), headers: { ...key, "content-type": contentType }, body: "{}" })
          expect({ status: answer.status, body: answer.json() }, `${method} ${path} ${contentType}`).toEqual({
            status: 415,
            body: { message: `Content-Type must be application/json (got ${contentType})` }
          })
          expectDocumented(document, method, path, answer)
        }
      }))

    it.effect("a request the contract cannot decode is 400 {message} naming where, the field and why; a body that is not JSON says so", () =>
      Effect.gen(function*() {
        const missing = yield* request("/v1/delivery/capacity/consumptions", { headers: { ...key, ...json }, body: JSON.stringify({ orderId: "o-1" }) })
        expect(missing.status).toBe(400)
        expect(Object.keys(missing.json() as object)).toEqual(["message"])
        expect((missing.json() as { message: string }).message).toMatch(/^Invalid request: body field dispatchCode: is missing/)

        const badDate = yield* request("/v1/delivery/capacity/nodes/CD-LURIN?from=soon&to=2027-03-02", { headers: key })
        expect(badDate.status).toBe(400)
        expect(badDate.json()).toEqual({ message: expect.stringMatching(/^Invalid request: query parameter from: /) })

        const notJson = yield* request("/v1/delivery/capacity/consumptions", { headers: { ...key, ...json }, body: "{\"orderId\":" })
        expect({ status: notJson.status, body: notJson.json() }).toEqual({
          status: 400,
          body: { message: "Invalid request: the body is not valid JSON" }
        })
      }))
    // Last: type-checking holds this process's event loop for seconds, and the server shares it; a
    // keep-alive connection idle past the server's timeout meanwhile is closed under the next request (ECONNRESET).
    it.effect("a client generated from the documents (openapi-typescript) type-checks a call of every operation", () =>
      Effect.gen(function*() {
        const publicOne = yield* publicDocument
        const internal = yield* internalDocument
        const typesOf = (document: Document) =>
          Effect.promise(async () => astToString(await openapiTS(document as unknown as Parameters<typeof openapiTS>[0])))
        const files = {
          "public.d.ts": yield* typesOf(publicOne),
          "internal.d.ts": yield* typesOf(internal),
          "calls.ts": CALLS
        }
        const operations = (document: Document, client: string) =>
          Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${client}.${method.toUpperCase()}("${path}"`))
        const called = new Set([...CALLS.matchAll(/(api|internal)\.(GET|POST|PUT|DELETE)\("[^"]+"/g)].map((match) => match[0]))
        for (const operation of [...operations(publicOne, "api"), ...operations(internal, "internal")]) {
          expect(called.has(operation), `${operation} is called in CALLS`).toBe(true)
        }
        expect(typeErrors(files)).toEqual([])
      }))
  })
})

const components = (document: Document, name: string) => document.components.schemas[name]

/**
 * Calls of every operation through openapi-fetch typed by the generated `paths`, with bodies the
 * server accepts (a test product, the demo network); the `@ts-expect-error` lines are calls the
 * types must refuse, so that the check cannot pass on types that accept anything.
 */
const CALLS = `
import createClient from "openapi-fetch"
import type { paths } from "./public"
import type { paths as internalPaths } from "./internal"

const api = createClient<paths>({ baseUrl: "http://127.0.0.1:8080" })
const internal = createClient<internalPaths>({ baseUrl: "http://127.0.0.1:8081" })
type ProductBody = paths["/v1/load-products"]["post"]["requestBody"]["content"]["application/json"]["products"][number]
const product: ProductBody = ${JSON.stringify(sampleProduct(1))}
const order = {
  orderId: "order-1", dispatchCode: "CD-LURIN-150122-NH", route: "R-LURIN-SUR-N", pickingDate: "2027-03-01",
  details: [{ route: "R-LURIN-SUR-N", departureDate: "2027-03-02" }], deliveryDate: "2027-03-03", deliveryWindow: "09:00-13:00", units: 1
}
const variantA = {
  purchaseDate: "2027-03-01",
  items: [{
    origin: "CD-LURIN", entityType: "CD" as const, skuCode: "SKU-TV-55-4K", zone: "", dispatchType: "NORMAL" as const, quantity: 1,
    destination: "150122", latitude: -12.12, longitude: -77.03, deliveryMode: "HOME_DELIVERY" as const
  }]
}
const variantB = {
  purchaseDate: "2027-03-01", saleChannel: "WEB",
  deliveryData: { latitude: -12.1219, longitude: -77.0297, ubigeoCode: "150122" },
  items: [{ skuCode: "SKU-TV-55-4K", quantity: 1 }]
}

export const calls = async () => {
  const loaded = await api.POST("/v1/load-products", { body: { products: [product] } })
  const processCode: string | undefined = loaded.data?.processCode
  const refusal: string | undefined = loaded.error?.message
  await api.POST("/v1/handle-json", { body: { productsJson: "{}" } })
  await api.POST("/v1/handle-csv", { body: { productsCsv: "", hierarchiesCsv: "", barcodesCsv: "", attributesCsv: "" } })
  const load = await api.GET("/v1/loads/{processCode}", { params: { path: { processCode: processCode ?? "" } } })
  const status: string | undefined = load.data?.status
  const page = await api.GET("/v1/loads/{processCode}/errors", { params: { path: { processCode: "p" }, query: { limit: 10, cursor: "c" } } })
  const next: string | null | undefined = page.data?.nextCursor
  await api.GET("/health")
  await api.GET("/ready")
  await api.POST("/v1/delivery/capacity", { body: variantA })
  await api.POST("/v1/delivery/capacity", { body: variantB })
  await api.GET("/v1/network")
  await api.PUT("/v1/network", { body: ${JSON.stringify(demoNetwork)} })
  const consumed = await api.POST("/v1/delivery/capacity/consumptions", { body: order })
  const outcome: "APPLIED" | "ALREADY_APPLIED" | "RELEASED" | undefined = consumed.data?.status
  await api.DELETE("/v1/delivery/capacity/consumptions/{orderId}", { params: { path: { orderId: "order-1" } } })
  await api.GET("/v1/delivery/capacity/nodes/{code}", { params: { path: { code: "CD-LURIN" }, query: { from: "2027-03-01", to: "2027-03-02" } } })
  const fed = await api.POST("/v1/stock/changes", { body: { sequence: 1, changes: [{ node: "CD-LURIN", sku: "SKU-TV-55-4K", units: 3 }] } })
  const applied: number | undefined = fed.data?.applied
  const held = await api.GET("/v1/stock/{sku}", { params: { path: { sku: "SKU-TV-55-4K" } } })
  const holders: number | undefined = held.data?.holders.length
  const changed = await api.POST("/v1/network/changes", {
    body: { sequence: 1, changes: [{ kind: "HOLIDAY", node: "CD-LURIN", date: "2027-03-01", holiday: true }, { kind: "ROUTE_CAPACITY", route: "R-LURIN-SUR-N", date: "2027-03-01", units: null }] }
  })
  const stale: number | undefined = changed.data?.stale
  const changes = await api.GET("/v1/network/changes")
  const overrides: number | undefined = changes.data?.changes.length
  await internal.POST("/v1/handle-json-int", { body: { company: "ACME", productsJson: "{}" } })

  // @ts-expect-error a price is a number
  await api.POST("/v1/load-products", { body: { products: [{ ...product, price: "12.50" }] } })
  // @ts-expect-error limit is an integer, not text
  await api.GET("/v1/loads/{processCode}/errors", { params: { path: { processCode: "p" }, query: { limit: "10" } } })
  // @ts-expect-error the internal endpoint is not in the public document
  await api.POST("/v1/handle-json-int", { body: { company: "ACME", productsJson: "{}" } })
  // @ts-expect-error the internal endpoint needs its company part
  await internal.POST("/v1/handle-json-int", { body: { productsJson: "{}" } })
  return [processCode, refusal, status, next, outcome, applied, holders, stale, overrides]
}
`

/** Where the generated files are written: under node_modules, so that "openapi-fetch" resolves as the repository installed it. */
const scratch = fileURLToPath(new URL("../node_modules/.cache/openapi-client/", import.meta.url))

/** The TypeScript compiler's diagnostics of `files` (strict), as text. */
const typeErrors = (files: Readonly<Record<string, string>>): Array<string> => {
  const folder = join(scratch, crypto.randomUUID())
  mkdirSync(folder, { recursive: true })
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text)
    const program = ts.createProgram([join(folder, "calls.ts")], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
      types: []
    })
    return ts.getPreEmitDiagnostics(program).map((diagnostic) =>
      `${diagnostic.file?.fileName.slice(folder.length + 1) ?? ""}:${
        diagnostic.file === undefined || diagnostic.start === undefined
          ? ""
          : diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1
      } ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`
    )
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}
