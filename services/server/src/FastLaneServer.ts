import { IncomingMessage, Server, ServerResponse } from "node:http"
import { EarlyAnswerResponse } from "./EarlyAnswerResponse.ts"

const STARTING = JSON.stringify({ message: "The server is starting; try again in a moment" })

export type Lane = (request: IncomingMessage, response: ServerResponse) => boolean

/**
 * A node:http server whose close() waits for requests in flight at most `shutdownGraceMs`, then
 * cuts their connections (their handlers are interrupted): shutdown ends in bounded time even
 * with a slow upload.
 *
 * No total deadline on a request (node's default requestTimeout of 300 s cut uploads longer than
 * five minutes however fast they progressed): a body that stalls is ended by the BodyWatchdog
 * instead; headersTimeout (60 s) still bounds the headers. Early answers close their connection
 * (EarlyAnswerResponse).
 */
export class GracefulServer extends Server {
  constructor(private readonly shutdownGraceMs: number) {
    super({ requestTimeout: 0, ServerResponse: EarlyAnswerResponse })
  }

  /**
   * The port is bound before the Effect stack attaches its handler (NodeHttpServer listens when its
   * layer is built, and the app's layers are built after it). node:http leaves a request that comes
   * in between unanswered for good; it is answered 503 with Retry-After instead.
   */
  override emit(event: string, ...args: Array<unknown>): boolean {
    if (event === "request" && this.listenerCount("request") === 0) {
      const response = args[1]
      if (response instanceof ServerResponse) {
        response.writeHead(503, { "content-type": "application/json", "retry-after": "1", connection: "close" })
        response.end(STARTING)
        return true
      }
    }
    return super.emit(event, ...args)
  }

  override close(callback?: (error?: Error) => void): this {
    const cut = setTimeout(() => this.closeAllConnections(), this.shutdownGraceMs)
    cut.unref()
    return super.close((error) => {
      clearTimeout(cut)
      callback?.(error)
    })
  }
}

/** A GracefulServer that offers each request to `lane` before the Effect HTTP stack sees it. */
class FastLaneServer extends GracefulServer {
  constructor(private readonly lane: Lane, shutdownGraceMs: number) {
    super(shutdownGraceMs)
  }

  override emit(event: string, ...args: Array<unknown>): boolean {
    if (event === "request") {
      const [request, response] = args
      if (request instanceof IncomingMessage && response instanceof ServerResponse && this.lane(request, response)) return true
    }
    return super.emit(event, ...args)
  }
}

export const createFastLaneServer = (lane: Lane, shutdownGraceMs: number) => () => new FastLaneServer(lane, shutdownGraceMs)

export const createGracefulServer = (shutdownGraceMs: number) => () => new GracefulServer(shutdownGraceMs)
