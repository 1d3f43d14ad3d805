/**
 * Variant B's error codes (the `code` of its error body) and the HTTP status each is answered with.
 * Variant A's errors are plain strings; each has the status of the variant B code of the same
 * error (Answer.ts builds both formats from one code).
 */
export const ERROR_CODES_B = {
  INVALID_REQUEST: 400,
  BUSINESS_RULE_VIOLATION: 400,
  UNAUTHORIZED: 401,
  NO_ROUTE_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_ERROR: 500
} as const
export type ErrorCodeB = keyof typeof ERROR_CODES_B
