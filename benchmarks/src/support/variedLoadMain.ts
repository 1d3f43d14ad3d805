// autocannon in its own process, each request's body drawn at random (seeded) from a list of bodies.
// argv: the options file ({url, connections, seconds, amount?, headers, bodies: string[], seed}).
// Prints autocannon's result as JSON, as its CLI does with --json.
import autocannon from "autocannon"
import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { rng } from "../../parsers/generate.ts"
import { AMOUNT_SAMPLE_MS } from "./Autocannon.ts"

const Options = Schema.Struct({
  url: Schema.String,
  connections: Schema.Number,
  seconds: Schema.Number,
  amount: Schema.optional(Schema.Number),
  headers: Schema.Record(Schema.String, Schema.String),
  bodies: Schema.NonEmptyArray(Schema.String),
  seed: Schema.Number
})

const options = Schema.decodeUnknownSync(Schema.fromJsonString(Options))(readFileSync(process.argv[2] ?? "", "utf8"))
const bodies = options.bodies.map((body) => Buffer.from(body))
const first = Buffer.from(options.bodies[0])
const random = rng(options.seed)

const result = await autocannon({
  url: options.url,
  connections: options.connections,
  // As the CLI's runs of an amount: sampled often, so that the run ends with its last answer.
  ...(options.amount === undefined ? { duration: options.seconds } : { amount: options.amount, sampleInt: AMOUNT_SAMPLE_MS }),
  timeout: 180,
  method: "POST",
  headers: options.headers,
  requests: [{
    setupRequest: (request) => {
      request.body = bodies[Math.floor(random() * bodies.length)] ?? first
      return request
    }
  }]
})
process.stdout.write(JSON.stringify(result))
