import { describe, expect, it } from "@effect/vitest"
import { sampleProducts } from "@retail/testkit"
import { Effect } from "effect"
import { chmodSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { call, type LoadViewBody, postJson } from "./support/App.ts"
import { testDir } from "./support/Lab.ts"
import { freePort, run, spawnChild, waitUntil } from "./support/Processes.ts"

const repository = fileURLToPath(new URL("../../", import.meta.url))
const DEV_TOKEN = /Development token \(company DEMO, 7 days\): ([\w.-]+)/

/**
 * README's first command as a new user runs it: `npm start` in a fresh clone with nothing set
 * (no DATABASE_URL, REDIS_URL, JWT or keys), on the embedded defaults, as its own process group so
 * that a SIGKILL takes npm, the shell and the server at once.
 */
const npmStart = (clone: string, name: string, port: number) =>
  Effect.gen(function*() {
    const logFile = join(clone, `${name}.log`)
    const child = yield* spawnChild("npm", ["start"], {
      cwd: clone,
      logFile,
      unset: ["DATABASE_URL", "REDIS_URL", "DATA_DIR", "JWT_SECRET", "CAPACITY_API_KEYS", "NODE_ENV", "NODE_OPTIONS"],
      env: { PORT: String(port), HOST: "127.0.0.1", INTERNAL_PORT: "0" },
      detached: true
    })
    const base = `http://127.0.0.1:${port}`
    const log = () => readFileSync(logFile, "utf8")
    yield* waitUntil(`${name} /health`, Effect.gen(function*() {
      if (!(yield* child.isRunning)) return yield* Effect.die(new Error(`${name} exited during start-up:\n${log()}`))
      const response = yield* call(base, "/health")
      if (response.status !== 200) return yield* Effect.fail(new Error(`health ${response.status}`))
    }), "180 seconds")
    // The log reaches its file through a pipe: the line may land just after /health answers.
    const token = yield* waitUntil(`${name}'s development token in its log`, Effect.suspend(() => {
      const found = DEV_TOKEN.exec(log())?.[1]
      return found === undefined ? Effect.fail(new Error(log())) : Effect.succeed(found)
    }), "10 seconds")
    return { base, child, token, log }
  })

const viewOf = (base: string, processCode: string, token: string) =>
  Effect.map(call(base, `/v1/loads/${processCode}`, { headers: { authorization: `Bearer ${token}` } }), (r) => r.json() as LoadViewBody)

describe("README's npm start, from a fresh clone, with nothing set", () => {
  it.live("comes up on the embedded PostgreSQL server with its queue in it, takes a load, and after kill -9 and a restart the load is COMPLETED with every product", () =>
    Effect.gen(function*() {
      const dir = testDir("fresh-clone")
      const clone = join(dir, "clone")
      yield* run("git", ["clone", "--quiet", "--depth", "1", `file://${repository}`, clone], { timeout: "120 seconds" })
      chmodSync(clone, 0o755)
      yield* run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], { timeout: "300 seconds", cwd: clone })
      const port = yield* freePort
      const first = yield* npmStart(clone, "first", port)
      expect(first.log()).toMatch(/database: embedded PostgreSQL server in \.\/\.data\/postgres; queue: tables of the embedded PostgreSQL server/)
      const ready = (yield* call(first.base, "/ready")).json() as { status: string; durability: { database: string; queue: string } }
      expect(ready.status).toBe("ready")
      expect(ready.durability.database).toMatch(/embedded PostgreSQL with its data in \.\/\.data\/postgres/)

      const products = sampleProducts(3_000, { prefix: "FC-" })
      const accepted = yield* postJson(first.base, "/v1/load-products", { products }, first.token)
      expect(accepted.status, accepted.text).toBe(200)
      const code = (accepted.json() as { processCode: string }).processCode
      yield* waitUntil("persisting", Effect.flatMap(viewOf(first.base, code, first.token), (view) =>
        view.totals.persisted > 0 ? Effect.void : Effect.fail(new Error("none yet"))))
      yield* Effect.sync(() => process.kill(-first.child.pid, "SIGKILL"))
      yield* first.child.exited

      const second = yield* npmStart(clone, "second", port)
      const view = yield* waitUntil("the load final", Effect.flatMap(viewOf(second.base, code, second.token), (view) =>
        view.status === "RECEIVED" || view.status === "PROCESSING" ? Effect.fail(new Error(JSON.stringify(view))) : Effect.succeed(view)), "90 seconds")
      // The queue is in the embedded database: what was accepted before the kill is persisted after it.
      expect(view.status, JSON.stringify(view)).toBe("COMPLETED")
      expect(view.totals).toEqual({ received: products.length, accepted: products.length, persisted: products.length, failed: 0 })
      yield* Effect.sync(() => process.kill(-second.child.pid, "SIGTERM"))
      yield* Effect.timeout(second.child.exited, "60 seconds")
    }), { timeout: 600_000 }) // its npm install alone took over 3 minutes on a busy 2-core machine
})
