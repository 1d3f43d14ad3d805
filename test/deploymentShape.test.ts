import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { clusterPlan, nodeArgumentsOf, WORKER_ROLE } from "../scripts/clusterPlan.ts"
import { serverNodeFlags } from "../scripts/serverNodeFlags.ts"

const repositoryFile = (name: string) => readFileSync(new URL(`../${name}`, import.meta.url), "utf8")

/** The exec-form arguments of a line such as `CMD ["node", ...]` (JSON). */
const execForm = (line: string | undefined): unknown => JSON.parse(line?.slice(line.indexOf("[")) ?? "null")

/** The lines of one service of docker-compose.yml: from `  name:` to the next service. */
const composeService = (compose: string, name: string): ReadonlyArray<string> => {
  const lines = compose.split("\n")
  const start = lines.indexOf(`  ${name}:`)
  if (start < 0) return []
  const end = lines.findIndex((line, i) => i > start && /^ {2}\S/.test(line))
  return lines.slice(start, end < 0 ? undefined : end)
}

describe("the deployment files start the processes as npm start and npm run cluster do", () => {
  it("the image runs the bundle with npm start's Node.js flags", () => {
    const cmd = repositoryFile("Dockerfile").split("\n").filter((line) => line.startsWith("CMD ")).at(-1)
    expect(execForm(cmd)).toEqual(["node", ...serverNodeFlags(), "dist/server.mjs"])
  })

  it("npm run cluster starts each member with npm start's flags, then its role's", () => {
    const plan = clusterPlan({ api: 1, workers: 1, capacity: 1, basePort: 8080, internalBasePort: 8181 })
    for (const member of plan) {
      const args = nodeArgumentsOf(member, serverNodeFlags(), "dist/server.mjs")
      expect(args, member.name).toEqual([...serverNodeFlags(), ...(member.role === "worker" ? WORKER_ROLE.nodeFlags : []), "dist/server.mjs"])
    }
  })

  it("compose's worker service is the cluster plan's worker role: its flags after npm start's, its workers on the event loop", () => {
    const compose = repositoryFile("docker-compose.yml")
    const worker = composeService(compose, "worker")
    const [member] = clusterPlan({ api: 0, workers: 1, capacity: 0, basePort: 8080, internalBasePort: 8181 })
    if (member === undefined) throw new Error("the plan has no worker")
    const command = worker.find((line) => line.trimStart().startsWith("command:"))
    expect(execForm(command)).toEqual(["node", ...nodeArgumentsOf(member, serverNodeFlags(), "dist/server.mjs")])
    for (const [name, value] of Object.entries(WORKER_ROLE.env)) expect(worker).toContain(`      ${name}: "${value}"`)
  })

  it("no other service of the image, nor their shared anchor, replaces the image's command or entrypoint", () => {
    const compose = repositoryFile("docker-compose.yml")
    const anchorStart = compose.indexOf("x-service: &service")
    const anchor = compose.slice(anchorStart, compose.indexOf("\n\n", anchorStart)).split("\n")
    const services = compose.split("\n").filter((line, i, lines) => line === "    <<: *service" && /^ {2}\S/.test(lines[i - 1] ?? ""))
    expect(services.length).toBe(3)
    const overrides = (lines: ReadonlyArray<string>) => lines.some((line) => /^\s*(command|entrypoint):/.test(line))
    expect(anchorStart).toBeGreaterThanOrEqual(0)
    expect(overrides(anchor)).toBe(false)
    for (const name of ["api", "capacity"]) {
      const service = composeService(compose, name)
      expect(service).toContain("    <<: *service")
      expect(overrides(service)).toBe(false)
    }
    expect(composeService(compose, "worker").some((line) => line.trimStart().startsWith("entrypoint:"))).toBe(false)
  })
})
