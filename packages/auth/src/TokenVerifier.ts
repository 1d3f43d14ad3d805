import type { Principal } from "@retail/api"
import { Config, Context, Effect, Layer, Option, Redacted, Schema, SchemaIssue } from "effect"
import { HttpApiError } from "effect/http-api"
import * as Jose from "jose"

export interface AuthSettings {
  readonly secret: Option.Option<Redacted.Redacted>
  readonly publicKey: Option.Option<string>
  readonly publicKeyAlgorithm: string
  readonly jwksUrl: Option.Option<string>
  readonly issuer: Option.Option<string>
  readonly audience: Option.Option<string>
  readonly production: boolean
}

/** An empty value is the same as an unset one (`JWT_SECRET=` in an env file must not mean "the empty key"). */
const nonEmpty = <A>(config: Config.Config<Option.Option<A>>, isEmpty: (a: A) => boolean) =>
  Config.map(config, Option.filter((a: A) => !isEmpty(a)))

/** A setting that is present but refused, as a schema check on it would fail: its message, at its name. */
const invalidSetting = (name: string, message: string) =>
  new Config.ConfigError(new Schema.SchemaError(new SchemaIssue.Pointer([name], new SchemaIssue.InvalidValue({ message }))))

/** RFC 7518 3.2: an HS256 key must be at least as long as the hash, 256 bits. */
export const MIN_SECRET_BYTES = 32

export const AuthSettingsConfig = Config.all({
  secret: nonEmpty(Config.option(Config.Redacted("JWT_SECRET")), (secret) => Redacted.value(secret).trim() === "").pipe(
    Config.mapEffect((secret) =>
      Option.isSome(secret) && new TextEncoder().encode(Redacted.value(secret.value)).length < MIN_SECRET_BYTES
        ? Effect.fail(invalidSetting("JWT_SECRET", `JWT_SECRET must be at least ${MIN_SECRET_BYTES} bytes (RFC 7518: an HS256 key as long as the hash)`))
        : Effect.succeed(secret)
    )
  ),
  publicKey: nonEmpty(Config.option(Config.String("JWT_PUBLIC_KEY")), (key) => key.trim() === ""),
  publicKeyAlgorithm: Config.Literals(["RS256", "ES256", "PS256", "EdDSA"], "JWT_ALGORITHM").pipe(Config.withDefault("RS256")),
  jwksUrl: nonEmpty(Config.option(Config.String("JWKS_URL")), (url) => url.trim() === ""),
  issuer: nonEmpty(Config.option(Config.String("JWT_ISSUER")), (issuer) => issuer === ""),
  audience: nonEmpty(Config.option(Config.String("JWT_AUDIENCE")), (audience) => audience === ""),
  production: Config.String("NODE_ENV").pipe(Config.map((env) => env === "production"), Config.withDefault(false))
})

type KeySource = Jose.CryptoKey | Uint8Array | Jose.JWTVerifyGetKey

const principalOf = (payload: Jose.JWTPayload): Principal => {
  const scope = payload["scope"]
  const company = payload["company"]
  return {
    subject: payload.sub ?? "",
    company: typeof company === "string" && company !== "" ? company : null,
    scopes: new Set(typeof scope === "string" ? scope.split(" ").filter((s) => s !== "") : [])
  }
}

/**
 * Verifies bearer JWTs with the one algorithm family configured (no `alg` negotiation, so
 * `none` and HS/RS confusion are refused); `exp` is required, `nbf`, issuer and audience checked.
 */
export class TokenVerifier extends Context.Service<TokenVerifier>()("@retail/auth/TokenVerifier", {
  make: Effect.gen(function*() {
    const settings = yield* AuthSettingsConfig
    const { algorithms, key } = yield* keyFrom(settings)
    const options: Jose.JWTVerifyOptions = {
      algorithms,
      requiredClaims: ["exp"],
      ...Option.match(settings.issuer, { onNone: () => ({}), onSome: (issuer) => ({ issuer }) }),
      ...Option.match(settings.audience, { onNone: () => ({}), onSome: (audience) => ({ audience }) })
    }
    const verifyWith = (token: string) =>
      typeof key === "function" ? Jose.jwtVerify(token, key, options) : Jose.jwtVerify(token, key, options)
    return {
      verify: (token: string): Effect.Effect<Principal, HttpApiError.Unauthorized> =>
        Effect.tryPromise({
          try: () => verifyWith(token),
          catch: () => new HttpApiError.Unauthorized()
        }).pipe(Effect.map(({ payload }) => principalOf(payload)))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}

const listed = (names: ReadonlyArray<string>) => `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`

/** Which source would win is not something an operator should have to know: two set is a mistake. */
const oneKeySource = (settings: AuthSettings) => {
  const sources: ReadonlyArray<readonly [string, Option.Option<unknown>]> = [
    ["JWT_SECRET", settings.secret],
    ["JWT_PUBLIC_KEY", settings.publicKey],
    ["JWKS_URL", settings.jwksUrl]
  ]
  const set = sources.flatMap(([name, value]) => (Option.isSome(value) ? [name] : []))
  return set.length > 1
    ? Effect.fail(new Error(
      `More than one JWT key source is set (${listed(set)}); set exactly one of JWT_SECRET, JWT_PUBLIC_KEY or JWKS_URL. Refusing to start`
    ))
    : Effect.void
}

const keyFrom = (settings: AuthSettings) =>
  Effect.gen(function*() {
    yield* oneKeySource(settings)
    if (Option.isSome(settings.secret)) {
      return { algorithms: ["HS256"], key: new TextEncoder().encode(Redacted.value(settings.secret.value)) as KeySource }
    }
    if (Option.isSome(settings.publicKey)) {
      const pem = settings.publicKey.value.replace(/\\n/g, "\n")
      const key = yield* Effect.tryPromise({
        try: () => Jose.importSPKI(pem, settings.publicKeyAlgorithm),
        catch: (cause) => new Error(`JWT_PUBLIC_KEY is not a ${settings.publicKeyAlgorithm} public key in PEM (SPKI): ${String(cause)}`)
      })
      return { algorithms: [settings.publicKeyAlgorithm], key: key as KeySource }
    }
    if (Option.isSome(settings.jwksUrl)) {
      return { algorithms: ["RS256", "ES256", "PS256", "EdDSA"], key: Jose.createRemoteJWKSet(new URL(settings.jwksUrl.value)) as KeySource }
    }
    if (settings.production) {
      return yield* Effect.fail(new Error("NODE_ENV=production needs JWT_SECRET, JWT_PUBLIC_KEY or JWKS_URL; refusing to start"))
    }
    const secret = crypto.getRandomValues(new Uint8Array(32))
    const token = yield* Effect.promise(() =>
      new Jose.SignJWT({ scope: "products:write products:read", company: "DEMO" })
        .setProtectedHeader({ alg: "HS256" })
        .setSubject("developer")
        .setIssuedAt()
        .setExpirationTime("7d")
        .sign(secret)
    )
    yield* Effect.logWarning(
      "No JWT_SECRET, JWT_PUBLIC_KEY or JWKS_URL set: using a random secret for this process. " +
        `Development token (company DEMO, 7 days): ${token}`
    )
    return { algorithms: ["HS256"], key: secret as KeySource }
  }).pipe(Effect.orDie)
