import { Context } from "effect"
import type { HttpServerResponse } from "effect/http"

/** Where a route leaves its own 408 (see BodyTimeoutAnswer). */
export interface BodyTimeoutSlot {
  readonly set: (answer: () => HttpServerResponse.HttpServerResponse) => void
}

/**
 * A route that reads its body itself and answers errors in a format of its own (POST
 * /v1/delivery/capacity through the HttpApi: variant B's `{code, message, details}`) gives here the
 * 408 it wants when the server's body watchdog ends its body (UPLOAD_IDLE_TIMEOUT_MS,
 * UPLOAD_MIN_BYTES_PER_SECOND); the watchdog answers with it instead of RequestTimeout's
 * `{message}`. Undefined where no watchdog runs.
 */
export const BodyTimeoutAnswer = Context.Reference<BodyTimeoutSlot | undefined>("@retail/api/BodyTimeoutAnswer", {
  defaultValue: () => undefined
})
