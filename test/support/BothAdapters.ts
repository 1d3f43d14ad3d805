import { Effect, Layer, Option } from "effect"
import { DemoNetworkCurrent } from "./DemoNetwork.ts"
import { type HttpResult, request } from "./Http.ts"
import { type Pace, type PacedAnswer, pacedPost } from "./PacedUpload.ts"
import { baseUrl, TestServer } from "./TestServer.ts"

// Issue 22: POST /v1/delivery/capacity and its consumptions each have a node:http fast lane beside
// their HttpApi route. The suites that hold the two to the same answers run every case against both.

/** The two adapters, for describe.each: `tag` is short enough to go into ids. */
export const ADAPTERS = [
  { adapter: "the fast lane", tag: "fast", fastLane: true },
  { adapter: "the HttpApi route", tag: "http", fastLane: false }
] as const

/** A server with `settings` through one adapter, on the current demo network (PUT with `adminKey`). */
export const adapterServer = (adminKey: string, settings: Record<string, string>, fastLane: boolean) =>
  DemoNetworkCurrent(adminKey).pipe(Layer.provideMerge(TestServer(settings, { fastLane })))

export const ADAPTER_LAYER_OPTIONS = { timeout: 120_000, excludeTestServices: true } as const

export const JSON_TYPE = "application/json"

/** What a client reads of an answer, every byte of it that the two adapters must agree on. */
export interface Seen {
  readonly status: number
  readonly contentType: string | null
  readonly retryAfter: string | null
  readonly body: string
}

export const seen = (response: HttpResult): Seen => ({
  status: response.status,
  contentType: response.headers.get("content-type"),
  retryAfter: response.headers.get("retry-after"),
  body: response.text
})

/** A JSON `{message}` answer. */
export const message = (status: number, text: string, retryAfter: string | null = null): Seen => ({
  status,
  contentType: JSON_TYPE,
  retryAfter,
  body: JSON.stringify({ message: text })
})

/** POST `body` to `path` with API key `key`, as JSON unless `headers` say otherwise. */
export const postAs = (key: string, path: string, body: string, headers: Record<string, string> = {}) =>
  Effect.map(request(path, { body, headers: { authorization: `Bearer ${key}`, "content-type": JSON_TYPE, ...headers } }), seen)

/** The answer to a body sent to `path` at `pace`, or status 0 when none came within 10 s. */
export const pacedAs = (key: string, path: string, body: string, pace: Pace) =>
  Effect.flatMap(baseUrl, (base) =>
    pacedPost(`${base}${path}`, { authorization: `Bearer ${key}`, "content-type": JSON_TYPE }, new TextEncoder().encode(body), pace).pipe(
      Effect.timeoutOption("10 seconds"),
      Effect.map(Option.getOrElse((): PacedAnswer => ({ status: 0, body: "", ms: 10_000 })))
    ))

/** What a client reads of a paced answer. */
export const shownPaced = ({ status, contentType, body }: PacedAnswer) => ({ status, contentType, body })

/** The order a client places on a variant A answer for a pickup at TD Surco on `date` (one shared picking pool of 120 a day). */
export const offeredPickup = (key: string, date: string) =>
  Effect.map(
    postAs(key, "/v1/delivery/capacity", JSON.stringify({
      purchaseDate: date,
      items: [{
        origin: "TD-SURCO", entityType: "TD", skuCode: "SKU-CELULAR-A54", zone: "", dispatchType: "NORMAL", quantity: 1,
        destination: "TD-SURCO", latitude: -12.11, longitude: -76.99, deliveryMode: "STORE_WITHDRAWAL"
      }]
    })),
    (answer) => {
      const [dispatch] = JSON.parse(answer.body) as ReadonlyArray<{
        dispatchCode: string
        route: string | null
        pickingDate: string
        deliveryTrace: ReadonlyArray<{ deliveryDate: string; details: ReadonlyArray<unknown> }>
      }>
      return {
        dispatchCode: dispatch!.dispatchCode,
        route: dispatch!.route,
        pickingDate: dispatch!.pickingDate,
        details: dispatch!.deliveryTrace[0]!.details,
        deliveryDate: dispatch!.deliveryTrace[0]!.deliveryDate
      }
    }
  )

const DAY_MS = 86_400_000
/** A random Monday from 2028 on (the demo network has no holidays after 2027): a run takes capacity on a day of its own. */
export const runMonday = () => new Date(Date.UTC(2028, 0, 3) + 7 * DAY_MS * Math.floor(Math.random() * 2000)).toISOString().slice(0, 10)
