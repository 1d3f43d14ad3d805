import { Scrape } from "@retail/testkit"
import { Effect } from "effect"
import { internalRequest } from "./Http.ts"

/** GET /metrics on the internal listener. */
export const scrape = Effect.flatMap(internalRequest("/metrics"), (response) =>
  response.status === 200 ? Effect.succeed(new Scrape(response.text)) : Effect.die(new Error(`/metrics answered ${response.status}: ${response.text}`)))
