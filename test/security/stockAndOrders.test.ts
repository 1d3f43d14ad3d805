import { describe, expect, layer } from "@effect/vitest"
import { demoNetwork } from "@retail/capacity"
import { Effect } from "effect"
import { ADAPTER_LAYER_OPTIONS, ADAPTERS, adapterServer, JSON_TYPE, offeredPickup, pacedAs, postAs, runMonday, shownPaced } from "../support/BothAdapters.ts"
import { request } from "../support/Http.ts"

// Hostile bodies within the limits on the stock feed, a SKU's stock and the consumptions: every
// one is a 4xx naming the field and the reason (never a 5xx, never a hang), and the server answers
// a valid request rightly afterwards.

const run = crypto.randomUUID().slice(0, 8)
const ADMIN_KEY = `hostile-admin-${run}`
const KEY = `hostile-${run}`
const IDLE_MS = 1000
const SETTINGS = {
  CAPACITY_API_KEYS: `${ADMIN_KEY},${KEY}`,
  UPLOAD_IDLE_TIMEOUT_MS: String(IDLE_MS),
  UPLOAD_MIN_BYTES_PER_SECOND: "1024"
}

const sku = (name: string) => `SKU-${run}-${name}`
const row = (overrides: Record<string, unknown> = {}) => ({ node: "CD-LURIN", sku: sku("row"), units: 1, ...overrides })
const batch = (changes: ReadonlyArray<unknown>, sequence: unknown = 1) => JSON.stringify({ sequence, changes })
const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth)
const MAX_SEQUENCE = Number.MAX_SAFE_INTEGER
const UNITS_RANGE = "expected an integer between 0 and 2147483647"
const SEQUENCE_RANGE = `expected an integer between 0 and ${MAX_SEQUENCE}`
const UNSTORABLE = "must not contain U+0000 or an unpaired surrogate"

const feed = (body: string, headers: Record<string, string> = {}) => postAs(KEY, "/v1/stock/changes", body, headers)
const messageOf = (body: string): string => {
  try {
    return (JSON.parse(body) as { message: string }).message
  } catch {
    return `not JSON: ${body.slice(0, 200)}`
  }
}

/** The SKU's holders as this server answers with them, by node. */
const held = (code: string) =>
  Effect.map(request(`/v1/stock/${encodeURIComponent(code)}`, { token: KEY }), (response) => {
    expect(response.status, response.text).toBe(200)
    const answer = response.json() as { sku: string; holders: ReadonlyArray<{ node: string; units: number }> }
    expect(answer.sku).toBe(code)
    return Object.fromEntries(answer.holders.map((holder) => [holder.node, holder.units]))
  })

describe("hostile bodies on POST /v1/stock/changes and GET /v1/stock/{sku}", () => {
  layer(adapterServer(ADMIN_KEY, SETTINGS, true), ADAPTER_LAYER_OPTIONS)((it) => {
    it.effect("400 names the field and the reason of each; the server then feeds a valid batch", () =>
      Effect.gen(function*() {
        const refused: ReadonlyArray<readonly [string, string]> = [
          [deep(100_000), "(root): expected an object {sequence, changes}, got [[[[[[[[[[[[[[[[[[[[[...]]]]]]]]]]]]]]]]]]]]"],
          [`{"sequence":1,"changes":[{"node":"CD-LURIN","sku":${deep(50_000)},"units":1}]}`, "changes[0].sku: expected a non-empty code, got [[[[[[[[[[[[[[[[[[[[[...]]]]]]]]]]]]]]]]]]]]"],
          [`{"sequence":1,"changes":${deep(50_000)}}`, "changes[0]: expected an object {node, sku, units}, got [[[[[[[[[[[[[[[[[[[[[...]]]]]]]]]]]]]]]]]]]]"],
          ["null", "(root): expected an object {sequence, changes}, got null"],
          ["\"changes\"", "(root): expected an object {sequence, changes}, got \"changes\""],
          [batch([row()], MAX_SEQUENCE + 1), `sequence: ${SEQUENCE_RANGE}, got 9007199254740992`],
          [batch([row()], -1), `sequence: ${SEQUENCE_RANGE}, got -1`],
          [batch([row()], 1.5), `sequence: ${SEQUENCE_RANGE}, got 1.5`],
          [batch([row()], "1"), `sequence: ${SEQUENCE_RANGE}, got "1"`],
          [batch([row()], "NaN"), `sequence: ${SEQUENCE_RANGE}, got "NaN"`],
          [`{"sequence":1e400,"changes":[]}`, `sequence: ${SEQUENCE_RANGE}, got Infinity; changes: must not be empty`],
          [`{"sequence":-1e400,"changes":[{"node":"CD-LURIN","sku":"x","units":1}]}`, `sequence: ${SEQUENCE_RANGE}, got -Infinity`],
          [`{"sequence":1,"sequence":"again","changes":[{"node":"CD-LURIN","sku":"x","units":1}]}`, `sequence: ${SEQUENCE_RANGE}, got "again"`],
          [`{"__proto__":{"sequence":1},"changes":[{"node":"CD-LURIN","sku":"x","units":1}]}`, "sequence: is required"],
          [batch([row({ units: 1e400 })]), `changes[0].units: ${UNITS_RANGE}, got null`],
          [`{"sequence":1,"changes":[{"node":"CD-LURIN","sku":"x","units":1e400}]}`, `changes[0].units: ${UNITS_RANGE}, got Infinity`],
          [batch([row({ units: 2 ** 31 })]), `changes[0].units: ${UNITS_RANGE}, got 2147483648`],
          [batch([row({ units: "7" })]), `changes[0].units: ${UNITS_RANGE}, got "7"`],
          [batch([row({ units: 0.5 })]), `changes[0].units: ${UNITS_RANGE}, got 0.5`],
          [batch([row({ sku: "A\u0000B" })]), `changes[0].sku: ${UNSTORABLE}, got "A\\u0000B"`],
          [batch([row({ sku: "A\ud800B" })]), `changes[0].sku: ${UNSTORABLE}, got "A\\ud800B"`],
          [batch([row({ sku: "\udc00" })]), `changes[0].sku: ${UNSTORABLE}, got "\\udc00"`],
          [batch([row({ sku: "S".repeat(101) })]), "changes[0].sku: expected a code of at most 100 characters, got 101"],
          [batch([row({ sku: " padded " })]), "changes[0].sku: expected a non-empty code, got \" padded \""],
          [batch([row({ sku: "two\nlines" })]), "changes[0].sku: expected a non-empty code, got \"two\\nlines\""],
          [batch([row({ node: "CD-LURIN\u0000" })]), `changes[0].node: ${UNSTORABLE}, got "CD-LURIN\\u0000"`],
          [batch([row({ node: "CD-LURÍN" })]), "changes[0].node: unknown node \"CD-LURÍN\" (not in the current network)"],
          [batch([row({ node: "CD-\u202eNIRUL" })]), "changes[0].node: unknown node \"CD-\u202eNIRUL\" (not in the current network)"],
          [batch([]), "changes: must not be empty"],
          [JSON.stringify({ sequence: 1, changes: { 0: row() } }), "changes: expected an array of {node, sku, units}, got {\"0\":{\"node\":\"CD-LURIN\",\"sku\":\"SKU-" ],
          [batch(Array.from({ length: 50_001 }, () => row())), "changes: at most 50000 changes in one batch, got 50001: send them as several batches"]
        ]
        const answers = yield* Effect.forEach(refused, ([body]) => feed(body))
        expect(answers.map((answer, i) => ({ body: refused[i]![0].slice(0, 80), status: answer.status, message: messageOf(answer.body) })))
          .toEqual(refused.map(([body, expected]) => ({ body: body.slice(0, 80), status: 400, message: expect.stringContaining(expected) })))
        for (const cut of ["", "{", batch([row()]).slice(0, 30), "{\"sequence\":1,}"]) {
          const answer = yield* feed(cut)
          expect({ cut, status: answer.status, message: messageOf(answer.body) })
            .toEqual({ cut, status: 400, message: expect.stringMatching(/^The body is not valid JSON: /) })
        }
        for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=latin1"]) {
          const answer = yield* feed(batch([row()]), { "content-type": contentType })
          expect({ sentAs: contentType, status: answer.status, message: messageOf(answer.body) })
            .toEqual({ sentAs: contentType, status: 415, message: expect.stringContaining("Content-Type must be application/json") })
        }
        const stalled = yield* pacedAs(KEY, "/v1/stock/changes", batch(Array.from({ length: 200 }, () => row())), { chunkBytes: 1024, everyMs: 20, stallAfterBytes: 2048 })
        expect(shownPaced(stalled)).toEqual({ status: 408, contentType: JSON_TYPE, body: expect.stringMatching(/^\{"message":"The request body (stopped arriving|arrived slower)/) })

        // Afterwards: exactly the row limit, repeated rows among them (the later stands), and codes of every kind.
        const limit = Array.from({ length: 50_000 }, (_, i) => ({ node: i % 2 === 0 ? "CD-LURIN" : "CD-CALLAO", sku: sku(`limit-${i % 10}`), units: i }))
        const fed = yield* feed(batch(limit, 7))
        expect(fed.status, fed.body).toBe(200)
        expect(JSON.parse(fed.body)).toEqual({ sequence: 7, received: 50_000, rows: 10, applied: 10, stale: 0 })
        expect(yield* held(sku("limit-3"))).toEqual({ "CD-CALLAO": 49_993 })
        expect(yield* held(sku("limit-4"))).toEqual({ "CD-LURIN": 49_994 })
        const codes = [sku("ñandú-🦜"), sku("tab\tinside"), sku("\u202eright-to-left"), `${sku("x")}${"y".repeat(100 - sku("x").length)}`, sku("a/b?c#d%e")]
        const varied = yield* feed(batch(codes.map((code, units) => row({ sku: code, units })), MAX_SEQUENCE))
        expect(JSON.parse(varied.body)).toEqual({ sequence: MAX_SEQUENCE, received: 5, rows: 5, applied: 5, stale: 0 })
        for (const [units, code] of codes.entries()) expect(yield* held(code)).toEqual({ "CD-LURIN": units })
        // The highest sequence again changes nothing.
        expect(JSON.parse((yield* feed(batch([row({ sku: codes[0], units: 99 })], MAX_SEQUENCE))).body)).toMatchObject({ applied: 0, stale: 1 })
        expect(yield* held(codes[0]!)).toEqual({ "CD-LURIN": 0 })
        // A SKU no batch can hold is a 400 naming the parameter, not a SKU without stock.
        const unstorable = yield* request(`/v1/stock/${encodeURIComponent("\u0000")}`, { token: KEY })
        expect([unstorable.status, messageOf(unstorable.text)]).toEqual([400, `Invalid request: path parameter sku: ${UNSTORABLE}`])
      }), { timeout: 120_000 })

    it.effect("PUT /v1/network: a body nested 100,000 deep, or a code PostgreSQL cannot store, is a 400 naming it", () =>
      Effect.gen(function*() {
        const put = (body: string) => Effect.map(request("/v1/network", { method: "PUT", token: ADMIN_KEY, headers: { "content-type": JSON_TYPE }, body }), (answer) => ({
          status: answer.status,
          message: messageOf(answer.text)
        }))
        expect(yield* put(deep(100_000))).toEqual({ status: 400, message: expect.stringContaining("actual [[[[") })
        const network = { ...demoNetwork, stock: [{ node: "CD-LURIN", sku: "SKU-\u0000", units: 1 }, { node: "CD-LURIN", sku: "S".repeat(101), units: 1 }] }
        expect(yield* put(JSON.stringify(network))).toEqual({
          status: 400,
          message: `stock[0].sku: ${UNSTORABLE}; stock[1].sku: expected a code of at most 100 characters, got 101`
        })
        // Stored as sent: an unknown field's text too, however deep.
        const unknownField = { ...demoNetwork, note: { deep: JSON.parse(deep(1000)) as unknown, "key\u0000": 1 } }
        expect(yield* put(JSON.stringify(unknownField))).toEqual({ status: 400, message: `note: a key ${UNSTORABLE}` })
        const withNote = (note: string) => `{${JSON.stringify(demoNetwork).slice(1, -1)},"note":${note}}`
        expect(yield* put(withNote(`["\\ud800"]`))).toEqual({ status: 400, message: `note[0]: ${UNSTORABLE}` })
        expect(yield* put(withNote(deep(100_000)))).toEqual({ status: 400, message: expect.stringMatching(/^note(\[0\]){100}: nested deeper than 100 levels$/) })
        // The demo network again, unharmed.
        expect((yield* put(JSON.stringify(demoNetwork))).status).toBe(200)
      }), { timeout: 120_000 })
  })
})

const monday = runMonday()

describe.each(ADAPTERS)("hostile bodies on POST /v1/delivery/capacity/consumptions through $adapter", ({ tag, fastLane }) => {
  const orderId = (name: string) => `${run}-${tag}-${name}`
  layer(adapterServer(ADMIN_KEY, SETTINGS, fastLane), ADAPTER_LAYER_OPTIONS)((it) => {
    it.effect("400 names the field and the reason of each; the server then takes a valid order", () =>
      Effect.gen(function*() {
        const order = yield* offeredPickup(KEY, monday)
        const body = (overrides: Record<string, unknown>) => JSON.stringify({ orderId: orderId("valid"), ...order, units: 1, ...overrides })
        const refused: ReadonlyArray<readonly [string, string]> = [
          [deep(100_000), "Invalid request: the body: Expected ConsumptionRequest, actual [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[...]]]"],
          [`{"orderId":${deep(50_000)}}`, "Invalid request: body field orderId: Expected string, actual [[[["],
          [body({ orderId: "a\u0000b" }), `Invalid request: body field orderId: ${UNSTORABLE}`],
          [body({ orderId: "a\ud800" }), `Invalid request: body field orderId: ${UNSTORABLE}`],
          [body({ orderId: "O".repeat(101) }), "Invalid request: body field orderId: must be at most 100 characters"],
          [body({ orderId: "" }), "Invalid request: body field orderId: must not be empty"],
          [body({ deliveryWindow: "\u0000" }), `Invalid request: body field deliveryWindow: ${UNSTORABLE}`],
          [body({ route: "\udfff" }), `Invalid request: body field route: ${UNSTORABLE}`],
          [body({ units: "1" }), "Invalid request: body field units: Expected number, actual \"1\""],
          [body({ units: 0.5 }), "Invalid request: body field units: Expected an integer, actual 0.5"],
          [body({ units: MAX_SEQUENCE + 1 }), "Invalid request: body field units: Expected an integer, actual 9007199254740992"],
          [body({ units: -1 }), "Invalid request: body field units: must be an integer greater than 0"],
          [body({ units: null }), "Invalid request: body field units: Expected number, actual null"],
          [body({ pickingDate: "2028-02-30" }), "Invalid request: body field pickingDate: expected a real date YYYY-MM-DD"],
          [body({ details: [[{ route: "R" }]] }), "Invalid request: body field details[0]: Expected { readonly route: minLength(1) & storableText; readonly departureDate: { string | filter } }, actual [{\"route\":\"R\"}]"],
          [`{"orderId":"${orderId("dup")}","orderId":7}`, "Invalid request: body field orderId: Expected string, actual 7"],
          ["{\"orderId\":", "Invalid request: the body is not valid JSON"],
          ["", "Invalid request: the body: Expected ConsumptionRequest, actual undefined"]
        ]
        const answers = yield* Effect.forEach(refused, ([sent]) => postAs(KEY, "/v1/delivery/capacity/consumptions", sent))
        expect(answers.map((answer, i) => ({ sent: refused[i]![0].slice(0, 80), status: answer.status, contentType: answer.contentType, message: messageOf(answer.body) })))
          .toEqual(refused.map(([sent, expected]) => ({ sent: sent.slice(0, 80), status: 400, contentType: JSON_TYPE, message: expect.stringContaining(expected) })))
        const tooMany = yield* postAs(KEY, "/v1/delivery/capacity/consumptions", body({ units: 2 ** 31 }))
        expect({ status: tooMany.status, message: messageOf(tooMany.body) })
          .toEqual({ status: 409, message: expect.stringContaining("cannot take 2147483648 more (total 120); nothing was taken") })
        const wrongType = yield* postAs(KEY, "/v1/delivery/capacity/consumptions", body({}), { "content-type": "text/plain" })
        expect(wrongType).toMatchObject({ status: 415, body: expect.stringContaining("Content-Type must be application/json") })
        const stalled = yield* pacedAs(KEY, "/v1/delivery/capacity/consumptions", body({ padding: "x".repeat(8000) }), { chunkBytes: 2048, everyMs: 20, stallAfterBytes: 4096 })
        expect(shownPaced(stalled)).toEqual({ status: 408, contentType: JSON_TYPE, body: expect.stringContaining("(UPLOAD_IDLE_TIMEOUT_MS)") })

        const taken = yield* postAs(KEY, "/v1/delivery/capacity/consumptions", body({}))
        expect(taken).toMatchObject({ status: 200, body: JSON.stringify({ orderId: orderId("valid"), status: "APPLIED" }) })
        const released = yield* request(`/v1/delivery/capacity/consumptions/${encodeURIComponent(orderId("valid"))}`, { method: "DELETE", token: KEY })
        expect(released.status, released.text).toBe(200)
      }), { timeout: 120_000 })
  })
})
