import type { IncomingMessage } from "node:http"

/** Whether the request announces a body (a positive Content-Length, or Transfer-Encoding). */
export const hasBody = (request: IncomingMessage) =>
  request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? "0") > 0
