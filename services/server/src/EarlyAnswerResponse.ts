import { type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { hasBody } from "./RequestBody.ts"

/**
 * How long a connection answered `Connection: close` still reads (and drops) what the client
 * sends before it is destroyed. Closing a socket with unread bytes makes the kernel send a RST,
 * which can drop the answer itself before the client has read it.
 */
const LINGER_MS = 2000

/** Ends our side, drops what still arrives, and destroys the socket when the client ends its side or after LINGER_MS. */
const lingerClose = (socket: Socket) => {
  const cut = setTimeout(() => socket.destroy(), LINGER_MS)
  cut.unref()
  socket.once("close", () => clearTimeout(cut))
  // node:http calls destroySoon() once a `Connection: close` answer is written; only our side ends then.
  socket.destroySoon = () => {
    socket.end()
  }
}

/**
 * The server's ServerResponse. An answer written before the request body has been received to its
 * end (an early 400, 401, 408, 413) says `Connection: close`: node:http would otherwise announce
 * keep-alive while nothing reads the rest of the body, and the client's next request on the
 * connection would wait behind it (6 s with curl, ECONNRESET with fetch). A body that did arrive
 * whole but was not read is dropped, so that the connection reads its next request.
 */
export class EarlyAnswerResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  override writeHead(
    statusCode: number,
    message?: string | OutgoingHttpHeaders | Array<OutgoingHttpHeader>,
    headers?: OutgoingHttpHeaders | Array<OutgoingHttpHeader>
  ): this {
    if (!this.headersSent) this.beforeHeaders()
    // Effect's node adapter calls writeHead(status, statusText, headers) with an undefined statusText.
    return typeof message === "string" || message === undefined
      ? super.writeHead(statusCode, message, headers)
      : super.writeHead(statusCode, message)
  }

  private beforeHeaders() {
    const request = this.req
    // Read to its end, no body (an answer written synchronously may precede node's `complete` of a
    // GET), or received whole with nothing left unread: node:http goes on by itself.
    if (request.readableEnded || !hasBody(request) || (request.complete && request.readableLength === 0)) return
    const closing = !request.complete
    if (closing) this.shouldKeepAlive = false
    // Before node's own 'finish' listener, which ends the socket (close) or waits for the next request.
    this.prependOnceListener("finish", () => {
      if (request.listenerCount("data") === 0 && request.listenerCount("readable") === 0) request.resume()
      if (closing && this.socket !== null) lingerClose(this.socket)
    })
  }
}
