import { describe, expect, it, layer } from "@effect/vitest"
import { TokenVerifier } from "@retail/auth"
import { sampleProducts } from "@retail/testkit"
import { Cause, ConfigProvider, Effect, Exit, Layer } from "effect"
import * as Jose from "jose"
import { postJson, request } from "../support/Http.ts"
import type { LoadBody } from "../support/Loads.ts"
import { mintToken, TEST_JWT_SECRET, TestServer } from "../support/TestServer.ts"

const run = crypto.randomUUID().slice(0, 8).toUpperCase()
const ISSUER = "https://idp.retailer.test"
const AUDIENCE = "retail-upload"
const claims = { scope: "products:write products:read", company: "ACME" }

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
const now = () => Math.floor(Date.now() / 1000)

/** An unsigned token (`alg: none`) with an otherwise perfect payload. */
const unsigned = (payload: Record<string, unknown>) => `${base64url({ alg: "none", typ: "JWT" })}.${base64url(payload)}.`

const keyPair = Effect.promise(async () => {
  const { privateKey, publicKey } = await Jose.generateKeyPair("RS256", { extractable: true })
  return { privateKey, publicKeyPem: await Jose.exportSPKI(publicKey) }
})

interface Signed {
  readonly alg: string
  readonly key: Jose.CryptoKey | Uint8Array
  readonly payload?: Record<string, unknown>
  readonly issuer?: string
  readonly audience?: string
  readonly expiresAt?: number
  readonly notBefore?: number
}

const sign = (options: Signed) =>
  Effect.promise(() => {
    const jwt = new Jose.SignJWT(options.payload ?? claims).setProtectedHeader({ alg: options.alg }).setIssuedAt()
    if (options.expiresAt !== undefined) jwt.setExpirationTime(options.expiresAt)
    if (options.notBefore !== undefined) jwt.setNotBefore(options.notBefore)
    if (options.issuer !== undefined) jwt.setIssuer(options.issuer)
    if (options.audience !== undefined) jwt.setAudience(options.audience)
    return jwt.sign(options.key)
  })

const loadOne = (token: string | undefined, path = "/v1/load-products") =>
  postJson(path, { products: sampleProducts(1, { prefix: `JWT${run}-` }) }, token)

const expectStatus = <R>(cases: ReadonlyArray<readonly [string, Effect.Effect<{ readonly status: number; readonly text: string }, never, R>, number]>) =>
  Effect.gen(function*() {
    for (const [name, response, status] of cases) {
      const answered = yield* response
      expect({ name, status: answered.status, body: answered.text }).toEqual({ name, status, body: "" })
    }
  })

const keys = await Effect.runPromise(keyPair)

describe("JWT verification with an RS256 public key, issuer and audience", () => {
  layer(TestServer({ JWT_SECRET: "", JWT_PUBLIC_KEY: keys.publicKeyPem, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE }), {
    timeout: 120_000,
    excludeTestServices: true
  })((it) => {
    it.effect("a well-formed RS256 token is let in; every forged, stale or misdirected one is 401 with an empty body", () =>
      Effect.gen(function*() {
        const good = { alg: "RS256", key: keys.privateKey, issuer: ISSUER, audience: AUDIENCE, expiresAt: now() + 600 } as const
        const valid = yield* sign(good)
        expect((yield* loadOne(valid)).status).toBe(200)

        const other = yield* keyPair
        const [header, payload] = valid.split(".")
        const tampered = `${header}.${base64url({ ...claims, company: "OTHER", iss: ISSUER, aud: AUDIENCE, exp: now() + 600 })}.${valid.split(".")[2]}`
        yield* expectStatus([
          ["alg none", loadOne(unsigned({ ...claims, iss: ISSUER, aud: AUDIENCE, exp: now() + 600 })), 401],
          ["alg none keeping the real payload", loadOne(`${base64url({ alg: "none" })}.${payload}.`), 401],
          // Algorithm confusion: the public key (public knowledge) used as an HMAC secret.
          ["HS256 signed with the public key PEM", loadOne(yield* sign({ ...good, alg: "HS256", key: new TextEncoder().encode(keys.publicKeyPem) })), 401],
          ["signed by another key", loadOne(yield* sign({ ...good, key: other.privateKey })), 401],
          ["payload changed after signing", loadOne(tampered), 401],
          ["signature stripped", loadOne(`${header}.${payload}.`), 401],
          ["expired", loadOne(yield* sign({ ...good, expiresAt: now() - 60 })), 401],
          ["not yet valid", loadOne(yield* sign({ ...good, notBefore: now() + 3600 })), 401],
          ["no exp", loadOne(yield* sign({ alg: "RS256", key: keys.privateKey, issuer: ISSUER, audience: AUDIENCE })), 401],
          ["wrong issuer", loadOne(yield* sign({ ...good, issuer: "https://evil.test" })), 401],
          ["no issuer", loadOne(yield* sign({ alg: "RS256", key: keys.privateKey, audience: AUDIENCE, expiresAt: now() + 600 })), 401],
          ["wrong audience", loadOne(yield* sign({ ...good, audience: "another-service" })), 401],
          ["token in the query string", loadOne(undefined, `/v1/load-products?access_token=${valid}`), 401],
          ["token in the query string of a read", request(`/v1/loads/${crypto.randomUUID()}?access_token=${valid}`), 401],
          ["not a bearer scheme", request("/v1/load-products", { headers: { authorization: `Basic ${valid}` }, body: "{}" }), 401]
        ])
      }))

    it.effect("a valid token lacking products:write is 403; without a company 403", () =>
      Effect.gen(function*() {
        const base = { alg: "RS256", key: keys.privateKey, issuer: ISSUER, audience: AUDIENCE, expiresAt: now() + 600 } as const
        yield* expectStatus([
          ["read scope only", loadOne(yield* sign({ ...base, payload: { scope: "products:read", company: "ACME" } })), 403],
          ["no scope", loadOne(yield* sign({ ...base, payload: { company: "ACME" } })), 403],
          ["scope as a prefix", loadOne(yield* sign({ ...base, payload: { scope: "products:writer", company: "ACME" } })), 403],
          ["no company", loadOne(yield* sign({ ...base, payload: { scope: "products:write" } })), 403]
        ])
      }))
  })
})

describe("JWT verification with an HS256 secret", () => {
  layer(TestServer(), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("the algorithm is pinned: alg none and HS512 with the same secret are 401", () =>
      Effect.gen(function*() {
        const secret = new TextEncoder().encode(TEST_JWT_SECRET)
        expect((yield* loadOne(yield* mintToken(claims))).status).toBe(200)
        yield* expectStatus([
          ["alg none", loadOne(unsigned({ ...claims, exp: now() + 600 })), 401],
          ["HS512 with the right secret", loadOne(yield* sign({ alg: "HS512", key: secret, expiresAt: now() + 600 })), 401],
          ["HS256 with an empty secret", loadOne(yield* sign({ alg: "HS256", key: new Uint8Array(32), expiresAt: now() + 600 })), 401]
        ])
      }))

    it.effect("another company's load is 404 on its status and its errors, exactly as an unknown one", () =>
      Effect.gen(function*() {
        const acme = yield* mintToken({ scope: "products:write products:read", company: "ACME" })
        const other = yield* mintToken({ scope: "products:write products:read", company: "OTHER" })
        const load = (yield* loadOne(acme)).json() as LoadBody
        for (const suffix of ["", "/errors"]) {
          expect((yield* request(`/v1/loads/${load.processCode}${suffix}`, { token: acme })).status).toBe(200)
          const hidden = yield* request(`/v1/loads/${load.processCode}${suffix}`, { token: other })
          const unknownCode = crypto.randomUUID()
          const unknown = yield* request(`/v1/loads/${unknownCode}${suffix}`, { token: other })
          expect(hidden.status).toBe(404)
          expect(hidden.text.replace(load.processCode, "<code>")).toBe(unknown.text.replace(unknownCode, "<code>"))
        }
      }))
  })
})

describe("JWT key configuration", () => {
  const verifierWith = (settings: Record<string, string>) =>
    Effect.exit(Effect.scoped(Layer.build(TokenVerifier.layer.pipe(
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(settings)))
    ))))

  it.effect("a JWT_SECRET shorter than 32 bytes refuses to start; an empty one counts as unset", () =>
    Effect.gen(function*() {
      const short = yield* verifierWith({ JWT_SECRET: "short-secret" })
      expect(Exit.isFailure(short) && Cause.pretty(short.cause)).toContain("JWT_SECRET must be at least 32 bytes")
      expect(Exit.isSuccess(yield* verifierWith({ JWT_SECRET: TEST_JWT_SECRET }))).toBe(true)
      const emptyInProduction = yield* verifierWith({ JWT_SECRET: "", NODE_ENV: "production" })
      expect(Exit.isFailure(emptyInProduction) && Cause.pretty(emptyInProduction.cause)).toContain("NODE_ENV=production needs JWT_SECRET")
    }))

  it.effect("more than one key source refuses to start, naming the ones set; an empty one counts as unset", () =>
    Effect.gen(function*() {
      const jwks = "https://idp.retailer.test/.well-known/jwks.json"
      const refusals = [
        [{ JWT_SECRET: TEST_JWT_SECRET, JWT_PUBLIC_KEY: keys.publicKeyPem }, "JWT_SECRET and JWT_PUBLIC_KEY"],
        [{ JWT_SECRET: TEST_JWT_SECRET, JWKS_URL: jwks }, "JWT_SECRET and JWKS_URL"],
        [{ JWT_PUBLIC_KEY: keys.publicKeyPem, JWKS_URL: jwks }, "JWT_PUBLIC_KEY and JWKS_URL"],
        [{ JWT_SECRET: TEST_JWT_SECRET, JWT_PUBLIC_KEY: keys.publicKeyPem, JWKS_URL: jwks }, "JWT_SECRET, JWT_PUBLIC_KEY and JWKS_URL"]
      ] as const
      for (const [settings, named] of refusals) {
        const exit = yield* verifierWith(settings)
        expect(Exit.isFailure(exit) && Cause.pretty(exit.cause)).toContain(
          `More than one JWT key source is set (${named}); set exactly one of JWT_SECRET, JWT_PUBLIC_KEY or JWKS_URL. Refusing to start`
        )
      }
      expect(Exit.isSuccess(yield* verifierWith({ JWT_SECRET: " ", JWT_PUBLIC_KEY: keys.publicKeyPem, JWKS_URL: "" }))).toBe(true)
    }))
})
