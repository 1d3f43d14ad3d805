import { IncomingMessage, Server, ServerResponse } from "node:http"

export type Lane = (request: IncomingMessage, response: ServerResponse) => boolean

/**
 * A node:http server that offers each request to `lane` before the Effect HTTP stack sees it.
 * Closing waits for requests in flight at most `shutdownGraceMs`, then cuts their connections
 * (their handlers are interrupted), so that shutdown ends in bounded time even with a slow upload.
 */
class FastLaneServer extends Server {
  constructor(private readonly lane: Lane, private readonly shutdownGraceMs: number) {
    super()
  }

  override close(callback?: (error?: Error) => void): this {
    const cut = setTimeout(() => this.closeAllConnections(), this.shutdownGraceMs)
    cut.unref()
    return super.close((error) => {
      clearTimeout(cut)
      callback?.(error)
    })
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
