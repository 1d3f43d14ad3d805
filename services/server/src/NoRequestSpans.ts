import { Layer } from "effect"
import { HttpMiddleware } from "effect/http"

/** No span per request: this server answers thousands of requests a second. */
export const NoRequestSpans = Layer.succeed(HttpMiddleware.TracerDisabledWhen, () => true)
