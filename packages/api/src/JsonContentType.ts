import { HttpApiMiddleware } from "effect/http-api"
import { UnsupportedMediaType } from "./Errors.ts"

/**
 * Refuses a body whose Content-Type is not JSON as `isJsonContentType` reads it (415 `{message}`),
 * before the framework decodes it: the framework's own 415 is a plain-text line, and it took
 * `charset=latin1`. Every JSON endpoint of both services reads media types this one way.
 */
export class JsonContentType extends HttpApiMiddleware.Service<JsonContentType>()("@retail/api/JsonContentType", {
  error: UnsupportedMediaType
}) {}

/** The message of that 415, the same on every JSON endpoint. */
export const unsupportedJsonMessage = (contentType: string | undefined): string =>
  `Content-Type must be application/json (got ${contentType ?? "none"})`
