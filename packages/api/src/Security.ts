import { HttpApiError, HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Context, Schema } from "effect"
import { TooManyRequests } from "./Errors.ts"

/** Who is calling, from a verified bearer JWT. */
export interface Principal {
  readonly subject: string
  readonly company: string | null
  readonly scopes: ReadonlySet<string>
}

export class CurrentPrincipal extends Context.Tag("@retail/api/CurrentPrincipal")<CurrentPrincipal, Principal>() {}

export const Scopes = {
  productsWrite: "products:write",
  productsRead: "products:read"
} as const

/**
 * Verifies `Authorization: Bearer <JWT>`; a missing or rejected token is 401 with an empty body,
 * a company over its request rate 429 (docs/limits.md).
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("@retail/api/Authentication", {
  failure: Schema.Union(HttpApiError.Unauthorized, TooManyRequests),
  provides: CurrentPrincipal,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Format, "JWT"),
      HttpApiSecurity.annotate(OpenApi.Description, "A JWT with the `products:write` scope (`products:read` for reading loads) and a `company` claim")
    )
  }
}) {}

/** `Authorization: Bearer <api-key>` for the capacity administration endpoints; 401 with an empty body otherwise, 429 over the key's rate. */
export class CapacityApiKey extends HttpApiMiddleware.Tag<CapacityApiKey>()("@retail/api/CapacityApiKey", {
  failure: Schema.Union(HttpApiError.Unauthorized, TooManyRequests),
  security: {
    apiKey: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "An API key from CAPACITY_API_KEYS")
    )
  }
}) {}
