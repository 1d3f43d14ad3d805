import { AppLive, Infrastructure, InternalAddress, Lifecycle, Listener, ListenerWithoutFastLane } from "@retail/service-server"
import type { JsonValidationPool } from "@retail/service-upload"
import { ConfigProvider, Context, Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import type { NetAddress } from "effect/net"
import * as Jose from "jose"

export const TEST_JWT_SECRET = "test-secret-with-enough-entropy-0123456789"

/** Uses the real servers when CI (or a developer) points at them, the embedded ones otherwise. */
export const infrastructureSettings = (): Record<string, string> => ({
  ...(process.env["DATABASE_URL"] ? { DATABASE_URL: process.env["DATABASE_URL"] } : { DATA_DIR: "memory://" }),
  ...(process.env["REDIS_URL"] ? { REDIS_URL: process.env["REDIS_URL"] } : {})
})

export const testSettings = (overrides: Record<string, string> = {}): Record<string, string> => {
  const run = crypto.randomUUID().slice(0, 8)
  return {
    HOST: "127.0.0.1",
    PORT: "0",
    INTERNAL_PORT: "0",
    JWT_SECRET: TEST_JWT_SECRET,
    CLAIM_IDLE_MS: "1000",
    MAX_DELIVERIES: "3",
    DATABASE_POOL_SIZE: "5",
    // Each test server gets its own streams, so test files sharing one Redis never see each other's entries.
    PRODUCT_BATCHES_STREAM: `test:${run}:products:batches`,
    LOAD_EVENTS_STREAM: `test:${run}:product-loads:events`,
    CAPACITY_EVENTS_STREAM: `test:${run}:capacity:events`,
    CONSUMER_NAME: `test-${run}`,
    ...infrastructureSettings(),
    ...overrides
  }
}

const withSettings = (settings: Record<string, string>) => ConfigProvider.layer(ConfigProvider.fromUnknown(settings))

export interface TestServerOptions {
  /** Replaces the infrastructure's threads of JSON file loads (a crashing one). */
  readonly jsonValidationPool?: Layer.Layer<JsonValidationPool>
  /** false: no capacity fast lane, POST /v1/delivery/capacity goes to its HttpApi route (ListenerWithoutFastLane). */
  readonly fastLane?: boolean
}

/** A started server on a free port, with the infrastructure it runs on exposed to the test. */
export const TestServer = (overrides: Record<string, string> = {}, options: TestServerOptions = {}) => {
  const settings = testSettings(overrides)
  const app = options.jsonValidationPool === undefined ? AppLive : Layer.provide(AppLive, options.jsonValidationPool)
  return app.pipe(
    Layer.provideMerge(options.fastLane === false ? ListenerWithoutFastLane : Listener),
    Layer.provideMerge(Lifecycle),
    Layer.provideMerge(Infrastructure),
    Layer.provide(withSettings(settings)),
    Layer.merge(Layer.succeed(TestSettings, settings))
  )
}

export class TestSettings extends Context.Service<TestSettings, Readonly<Record<string, string>>>()("test/TestSettings") {}

const urlOf = (address: NetAddress.SocketAddress) => address._tag === "UnixPathAddress" ? "http://unix" : `http://127.0.0.1:${address.port}`

export const baseUrl = Effect.map(HttpServer.HttpServer, (server) => urlOf(server.address))

/** The internal listener (INTERNAL_PORT), where /v1/handle-json-int is served. */
export const internalBaseUrl = Effect.map(InternalAddress, urlOf)

export interface TokenClaims {
  readonly scope?: string
  readonly company?: string
  readonly sub?: string
}

export const mintToken = (
  claims: TokenClaims = { scope: "products:write products:read", company: "ACME" },
  options: { readonly secret?: string; readonly expiresIn?: string | number; readonly notBefore?: string | number } = {}
) =>
  Effect.promise(() => {
    const jwt = new Jose.SignJWT({ ...claims }).setProtectedHeader({ alg: "HS256" }).setIssuedAt()
    jwt.setExpirationTime(options.expiresIn ?? "10m")
    if (options.notBefore !== undefined) jwt.setNotBefore(options.notBefore)
    return jwt.sign(new TextEncoder().encode(options.secret ?? TEST_JWT_SECRET))
  })
