// A bare node:http server: reads each request body to its end, answers the JSON configured for its
// path, or for its path and body (key `${path} ${body}`) when the path alone has none. A path under
// `/busy/<n>/` first spins on the event loop until the process has used n µs more CPU (work a server
// would do per request, counted in CPU time so that a preempted spin still does all of it; the
// process's, so V8's helper threads count too: capacity-budget).
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import { Schema } from "effect"

const answers = new Map(
  Object.entries(Schema.decodeUnknownSync(Schema.fromJsonString(Schema.Record(Schema.String, Schema.String)))(readFileSync(process.argv[2] ?? "", "utf8")))
)

const BUSY = /^\/busy\/(\d+)\//

const cpuMicros = () => {
  const { user, system } = process.cpuUsage()
  return user + system
}

const spin = (micros: number) => {
  const until = cpuMicros() + micros
  while (cpuMicros() < until);
}

const server = createServer((request, response) => {
  const path = request.url ?? ""
  const busyMicros = path.startsWith("/busy/") ? Number(BUSY.exec(path)?.[1] ?? 0) : 0
  const byPath = answers.get(path)
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => {
    if (byPath === undefined) chunks.push(chunk)
  })
  request.on("end", () => {
    const answer = byPath ?? answers.get(`${path} ${Buffer.concat(chunks).toString("utf8")}`)
    if (answer === undefined) {
      response.writeHead(404).end()
      return
    }
    if (busyMicros > 0) spin(busyMicros)
    response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) })
    response.end(answer)
  })
})
server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  console.log(`listening ${typeof address === "object" && address !== null ? address.port : 0}`)
})
process.on("SIGTERM", () => {
  server.close(() => process.exit(0))
  server.closeAllConnections()
})
