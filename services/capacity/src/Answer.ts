/** A finished HTTP answer: status, media type and body (plain strings for errors, as the spec asks). */
export interface Answer {
  readonly status: number
  readonly contentType: "application/json" | "text/plain; charset=utf-8"
  readonly body: string
}

export const plain = (status: number, body: string): Answer => ({ status, contentType: "text/plain; charset=utf-8", body })

export const UNAUTHORIZED = plain(401, "Unauthorized: send Authorization: Bearer <api-key>")
export const INTERNAL = plain(500, "Internal server error: the delivery date could not be computed")

export const UNSUPPORTED_MEDIA_TYPE = plain(415, "Unsupported media type: send Content-Type: application/json")
/** Bad JSON is answered before the variant is known, as variant A answers (plain string). */
export const badJson = (error: unknown): Answer =>
  plain(400, `Bad request: the body is not valid JSON (${error instanceof Error ? error.message : String(error)})`)
