// A bare node:http server: reads each request body to its end, answers the JSON configured for its path.
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import { Schema } from "effect"

const answers = new Map(
  Object.entries(Schema.decodeUnknownSync(Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.String })))(readFileSync(process.argv[2] ?? "", "utf8")))
)

const server = createServer((request, response) => {
  const answer = answers.get(request.url ?? "")
  request.on("data", () => undefined)
  request.on("end", () => {
    if (answer === undefined) {
      response.writeHead(404).end()
      return
    }
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
