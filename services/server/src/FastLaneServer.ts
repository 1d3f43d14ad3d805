import { IncomingMessage, Server, ServerResponse } from "node:http"

export type Lane = (request: IncomingMessage, response: ServerResponse) => boolean

/** A node:http server that offers each request to `lane` before the Effect HTTP stack sees it. */
class FastLaneServer extends Server {
  constructor(private readonly lane: Lane) {
    super()
  }

  override emit(event: string, ...args: Array<unknown>): boolean {
    if (event === "request") {
      const [request, response] = args
      if (request instanceof IncomingMessage && response instanceof ServerResponse && this.lane(request, response)) return true
    }
    return super.emit(event, ...args)
  }
}

export const createFastLaneServer = (lane: Lane) => () => new FastLaneServer(lane)
