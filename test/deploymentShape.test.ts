import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { WORKER_ROLE } from "../scripts/clusterPlan.ts"
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

  it("compose's worker service is the cluster plan's worker role: its flags after npm start's, its workers on the event loop", () => {
    const worker = composeService(repositoryFile("docker-compose.yml"), "worker")
    const command = worker.find((line) => line.trimStart().startsWith("command:"))
    expect(execForm(command)).toEqual(["node", ...serverNodeFlags(), ...WORKER_ROLE.nodeFlags, "dist/server.mjs"])
    for (const [name, value] of Object.entries(WORKER_ROLE.env)) expect(worker).toContain(`      ${name}: "${value}"`)
  })

  it("no other service of the image overrides the image's command", () => {
    for (const name of ["api", "capacity"]) {
      const service = composeService(repositoryFile("docker-compose.yml"), name)
      expect(service.length).toBeGreaterThan(0)
      expect(service.some((line) => line.trimStart().startsWith("command:"))).toBe(false)
    }
  })
})
