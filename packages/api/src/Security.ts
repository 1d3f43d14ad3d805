import { Context } from "effect"
import { HttpApiError, HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { TooManyRequests } from "./Errors.ts"

/** Who is calling, from a verified bearer JWT. */
export interface Principal {
  readonly subject: string
  readonly company: string | null
  readonly scopes: ReadonlySet<string>
}

export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("@retail/api/CurrentPrincipal") {}

export const Scopes = {
  productsWrite: "products:write",
  productsRead: "products:read"
} as const

/** `Authorization: Bearer <credential>`, documented with the scheme's registered name in lower case as it always was. */
const bearer = HttpApiSecurity.http({ scheme: "bearer" })

/**
 * Verifies `Authorization: Bearer <JWT>`; a missing or rejected token is 401 with an empty body,
 * a company over its request rate 429 (docs/limits.md).
 */
export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: CurrentPrincipal }>()(
  "@retail/api/Authentication",
  {
    error: [HttpApiError.UnauthorizedNoContent, TooManyRequests],
    security: {
      bearer: bearer.pipe(
        HttpApiSecurity.annotate(OpenApi.Format, "JWT"),
        HttpApiSecurity.annotate(
          OpenApi.Description,
          "A JWT with the `products:write` scope (`products:read` for reading loads) and a `company` claim"
        )
      )
    }
  }
) {}

/** The name of the capacity API key's security scheme in the OpenAPI document. */
export const CapacityApiKeyScheme = "apiKey"

/** `Authorization: Bearer <api-key>` for the capacity administration endpoints; 401 with an empty body otherwise, 429 over the key's rate. */
export class CapacityApiKey extends HttpApiMiddleware.Service<CapacityApiKey>()("@retail/api/CapacityApiKey", {
  error: [HttpApiError.UnauthorizedNoContent, TooManyRequests],
  security: {
    [CapacityApiKeyScheme]: bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "An API key from CAPACITY_API_KEYS")
    )
  }
}) {}
