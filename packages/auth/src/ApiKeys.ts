import { Context } from "effect"

/** The capacity API keys a caller may send as `Authorization: Bearer <key>`. */
export class ApiKeys extends Context.Service<ApiKeys, ReadonlySet<string>>()("@retail/auth/ApiKeys") {}

/** The credential of `Authorization: Bearer <credential>`, if the header has that form. */
export const bearerCredential = (header: string | undefined): string | undefined =>
  header !== undefined && header.startsWith("Bearer ") ? header.slice(7).trim() : undefined

/** True when the header carries one of the keys (the fast lane's check, without the middleware). */
export const holdsApiKey = (keys: ReadonlySet<string>, authorization: string | undefined): boolean => {
  const key = bearerCredential(authorization)
  return key !== undefined && keys.has(key)
}
