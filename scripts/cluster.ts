import { spawn } from "node:child_process"
import { parseArgs } from "node:util"
import { buildServer } from "./buildServer.ts"
import { clusterPlan, nodeArgumentsOf } from "./clusterPlan.ts"
import { serverNodeFlags } from "./serverNodeFlags.ts"

/**
 * `npm run cluster -- --api 2 --workers 2 --capacity 2`: the compose file's shape with plain
 * processes on this machine, against the PostgreSQL and Redis of DATABASE_URL and REDIS_URL.
 * Each process's output is prefixed with its name; Ctrl-C (or SIGTERM) stops them all gracefully.
 */
const { values } = parseArgs({
  options: {
    api: { type: "string", default: "2" },
    workers: { type: "string", default: "2" },
    capacity: { type: "string", default: "2" },
    port: { type: "string", default: "8080" },
    "internal-port": { type: "string", default: "8181" }
  }
})

const count = (name: string, value: string): number => {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number (got ${value})`)
  return n
}

if (process.env["DATABASE_URL"] === undefined || process.env["REDIS_URL"] === undefined) {
  console.error("A cluster shares one PostgreSQL and one Redis: set DATABASE_URL and REDIS_URL (Redis with appendonly yes).")
  process.exit(2)
}

const plan = clusterPlan({
  api: count("api", values.api),
  workers: count("workers", values.workers),
  capacity: count("capacity", values.capacity),
  basePort: count("port", values.port),
  internalBasePort: count("internal-port", values["internal-port"])
})
const bundle = await buildServer()
const children = plan.map((member) => {
  const child = spawn(process.execPath, nodeArgumentsOf(member, serverNodeFlags(), bundle), {
    env: { ...process.env, ...member.env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const prefix = (chunk: Buffer) => chunk.toString().split("\n").filter((line) => line !== "").map((line) => `[${member.name}] ${line}\n`).join("")
  child.stdout.on("data", (chunk: Buffer) => process.stdout.write(prefix(chunk)))
  child.stderr.on("data", (chunk: Buffer) => process.stderr.write(prefix(chunk)))
  child.on("exit", (code, signal) => console.log(`[${member.name}] exited (${signal ?? code})`))
  return child
})

console.log(plan.map((member) => `${member.name.padEnd(12)} http://127.0.0.1:${member.port}`).join("\n"))
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    for (const child of children) child.kill("SIGTERM")
  })
}
await Promise.all(children.map((child) => new Promise((done) => child.once("exit", done))))
