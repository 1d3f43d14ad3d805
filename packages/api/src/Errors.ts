import { Schema } from "effect"

/*
 * Error bodies are the spec's ErrorMessage (`{ "message": ... }`) plus a `_tag` naming the
 * error. The tag is what lets the API's error union pick the right status: members that differ
 * only by class are told apart structurally, and all of these have the same fields.
 */

export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()(
  "InvalidRequest",
  { message: Schema.String },
  { httpApiStatus: 400, description: "The request is malformed; the message names the field and the reason" }
) {}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  { message: Schema.String },
  { httpApiStatus: 413, description: "The request body is larger than this endpoint accepts" }
) {}

export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()(
  "RequestTimeout",
  { message: Schema.String },
  {
    httpApiStatus: 408,
    description: "The request body stopped arriving (UPLOAD_IDLE_TIMEOUT_MS) or arrived slower than UPLOAD_MIN_BYTES_PER_SECOND; nothing was published"
  }
) {}

export class LoadNotFound extends Schema.TaggedError<LoadNotFound>()(
  "LoadNotFound",
  { message: Schema.String },
  { httpApiStatus: 404, description: "No load with this process code is visible to the caller" }
) {}

export class PublishFailed extends Schema.TaggedError<PublishFailed>()(
  "PublishFailed",
  { message: Schema.String },
  { httpApiStatus: 500, description: "The products could not be sent to the messaging system; nothing was published" }
) {}

export class StorageFailed extends Schema.TaggedError<StorageFailed>()(
  "StorageFailed",
  { message: Schema.String },
  {
    httpApiStatus: 500,
    description: "A dependency of the server failed (the database, the spool disk, or a file load's worker thread; the message says which). Nothing was published or changed: retry later"
  }
) {}

export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  { message: Schema.String },
  { httpApiStatus: 415, description: "The request's Content-Type is not the one this endpoint takes" }
) {}

export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()(
  "TooManyRequests",
  { message: Schema.String },
  {
    httpApiStatus: 429,
    description: "The caller is over one of its limits (docs/limits.md); the Retry-After header says when to try again"
  }
) {}
