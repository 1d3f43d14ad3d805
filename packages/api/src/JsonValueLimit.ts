import { HttpApiMiddleware } from "effect/http-api"
import { PayloadTooLarge } from "./Errors.ts"

/**
 * Counts the JSON values of a body before the framework parses it (413 past the limit): JSON.parse's
 * heap grows with values, not bytes. Declared before the group's key check so that it runs after it.
 */
export class JsonValueLimit extends HttpApiMiddleware.Service<JsonValueLimit>()("@retail/api/JsonValueLimit", {
  error: PayloadTooLarge
}) {}
