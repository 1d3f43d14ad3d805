import { MessageError } from "./MessageError.ts"

/*
 * Error bodies are the spec's ErrorMessage (`{ "message": ... }`), nothing more (MessageError.ts):
 * the server encodes each error by its class, and a client tells them apart by status.
 */

export class InvalidRequest extends MessageError<InvalidRequest>()(
  "InvalidRequest",
  400,
  "The request is malformed; the message names the field and the reason"
) {}

export class PayloadTooLarge extends MessageError<PayloadTooLarge>()(
  "PayloadTooLarge",
  413,
  "The request body is larger than this endpoint accepts"
) {}

export class RequestTimeout extends MessageError<RequestTimeout>()(
  "RequestTimeout",
  408,
  "The request body stopped arriving (UPLOAD_IDLE_TIMEOUT_MS) or arrived slower than UPLOAD_MIN_BYTES_PER_SECOND; nothing was published"
) {}

export class LoadNotFound extends MessageError<LoadNotFound>()("LoadNotFound", 404, "No load with this process code is visible to the caller") {}

export class PublishFailed extends MessageError<PublishFailed>()(
  "PublishFailed",
  500,
  "The products could not be sent to the messaging system; nothing was published"
) {}

export class StorageFailed extends MessageError<StorageFailed>()(
  "StorageFailed",
  500,
  "A dependency of the server failed (the database, the spool disk, or a file load's worker thread; the message says which). Nothing was published or changed: retry later"
) {}

export class UnsupportedMediaType extends MessageError<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  415,
  "The request's Content-Type is not the one this endpoint takes"
) {}

export class TooManyRequests extends MessageError<TooManyRequests>()(
  "TooManyRequests",
  429,
  "The caller is over one of its limits (docs/limits.md); the Retry-After header says when to try again"
) {}
