// What the load processes (variedLoadMain.ts, ordersLoadMain.ts) share: their options file and
// autocannon run programmatically as its CLI runs (Autocannon.ts), POSTs whose bodies they set.
import autocannon, { type RequestHooks } from "autocannon"
import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { AMOUNT_SAMPLE_MS } from "./Autocannon.ts"

/** Where and how hard: the fields every load process's options file has, beside its own. */
export const LoadFields = {
  url: Schema.String,
  connections: Schema.Number,
  seconds: Schema.Number,
  amount: Schema.optional(Schema.Number),
  headers: Schema.Record(Schema.String, Schema.String)
}

/** The text of the options file named by argv[2]. */
export const optionsText = (): string => readFileSync(process.argv[2] ?? "", "utf8")

export interface LoadTarget {
  readonly url: string
  readonly connections: number
  readonly seconds: number
  readonly amount?: number | undefined
  readonly headers: { readonly [name: string]: string }
}

/** POSTs to `target` for its seconds, or its amount (sampled often, as the CLI's runs: the run ends with its last answer); `timeout` in seconds. */
export const postLoad = (target: LoadTarget, timeout: number, hooks: RequestHooks) =>
  autocannon({
    url: target.url,
    connections: target.connections,
    ...(target.amount === undefined ? { duration: target.seconds } : { amount: target.amount, sampleInt: AMOUNT_SAMPLE_MS }),
    timeout,
    method: "POST",
    headers: target.headers,
    requests: [hooks]
  })
