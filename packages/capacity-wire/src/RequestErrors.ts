import { Data } from "effect"

/** 400: the plain-string body names each bad field and why. */
export class BadRequest extends Data.TaggedError("BadRequest")<{ readonly message: string }> {}

/** 404: no dispatch of the request has any route. */
export class NoRouteFound extends Data.TaggedError("NoRouteFound")<{ readonly message: string }> {}
