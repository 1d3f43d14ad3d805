// autocannon in its own process, each request's body drawn at random (seeded) from a list of bodies.
// argv: the options file ({url, connections, seconds, amount?, headers, bodies: string[], seed}).
// Prints autocannon's result as JSON, as its CLI does with --json.
import { Schema } from "effect"
import { rng } from "../../parsers/generate.ts"
import { LOAD_STARTED } from "./Autocannon.ts"
import { LoadFields, optionsText, postLoad } from "./LoadProcess.ts"

const Options = Schema.Struct({ ...LoadFields, bodies: Schema.NonEmptyArray(Schema.String), seed: Schema.Number })
const options = Schema.decodeUnknownSync(Schema.fromJsonString(Options))(optionsText())
const bodies = options.bodies.map((body) => Buffer.from(body))
const first = Buffer.from(options.bodies[0])
const random = rng(options.seed)

// What runVaried (Autocannon.ts) waits for to tell its caller the load is starting.
process.stderr.write(`${LOAD_STARTED}\n`)
const result = await postLoad(options, 180, {
  setupRequest: (request) => {
    request.body = bodies[Math.floor(random() * bodies.length)] ?? first
    return request
  }
})
process.stdout.write(JSON.stringify(result))
