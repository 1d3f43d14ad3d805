import type { Principal } from "@retail/api"
import { Effect } from "effect"
import { HttpApiError } from "effect/http-api"

/** The company a caller loads products for: its token must carry the scope and a company. */
export const companyWithScope = (principal: Principal, scope: string) =>
  principal.scopes.has(scope) && principal.company !== null
    ? Effect.succeed(principal.company)
    : Effect.fail(new HttpApiError.Forbidden({}))
