import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { clusterPlan, WORKER_ROLE } from "../../scripts/clusterPlan.ts"
import { serverNodeFlags } from "../../scripts/serverNodeFlags.ts"
import { childrenOf, isRunning, nodeFlagsOf } from "../support/ProcessTable.ts"
import { CAPACITY_KEY, JWT_SECRET } from "./support/App.ts"
import { lab } from "./support/Lab.ts"
import { freePort, spawnChild, stopTimed, waitUntil } from "./support/Processes.ts"

describe("npm run cluster (scripts/cluster.ts), as an operator runs it", () => {
  it.live("starts every member of the plan with npm start's Node.js flags and its role's, each answers /health, and SIGTERM to the script stops them all", () =>
    Effect.gen(function*() {
      const { dir, connection } = yield* lab("cluster-script")
      // Members take consecutive ports from --port: a free one and the next (another suite may hold it, rarely).
      const port = yield* freePort
      const internalPort = yield* freePort
      const shape = { api: 1, workers: 1, capacity: 0, basePort: port, internalBasePort: internalPort }
      const script = yield* spawnChild(process.execPath, [
        "--import", "tsx", "scripts/cluster.ts",
        "--api", "1", "--workers", "1", "--capacity", "0", "--port", String(port), "--internal-port", String(internalPort)
      ], {
        env: { ...connection, JWT_SECRET, CAPACITY_API_KEYS: CAPACITY_KEY },
        logFile: join(dir, "cluster.log")
      })
      const plan = clusterPlan(shape)
      for (const member of plan) {
        yield* waitUntil(`${member.name} /health`, Effect.tryPromise(async () => {
          const response = await fetch(`http://127.0.0.1:${member.port}/health`)
          if (response.status !== 200) throw new Error(`health ${response.status}`)
        }), "120 seconds")
      }

      // The members are the script's children running the bundle (esbuild's service is a child too).
      const members = childrenOf(script.pid).filter((child) => child.argv.some((arg) => arg.endsWith("server.mjs")))
      expect(members).toHaveLength(plan.length)
      for (const member of plan) {
        const env = (pid: number) => readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")
        const found = members.find((child) => env(child.pid).includes(`PORT=${member.port}`))
        expect(found, member.name).toBeDefined()
        expect(found === undefined ? [] : nodeFlagsOf(found.pid), member.name).toEqual([...serverNodeFlags(), ...(member.role === "worker" ? WORKER_ROLE.nodeFlags : [])])
      }

      const exit = yield* stopTimed(script, "SIGTERM")
      expect(exit.millis, readFileSync(join(dir, "cluster.log"), "utf8").slice(-2000)).toBeLessThan(60_000)
      for (const member of members) expect(isRunning(member.pid), `member ${member.pid} stopped with the script`).toBe(false)
      const log = readFileSync(join(dir, "cluster.log"), "utf8")
      for (const member of plan) expect(log).toMatch(new RegExp(`\\[${member.name}\\] exited \\(0\\)`))
    }))
})
