import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"
import { buildServerBundleForRun } from "../support/ServerBundle.ts"
import { asPostgres, initTemplate, postgresBin } from "./support/Postgres.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** Folder of this run: every cluster, Redis and server log of the fault suite lives under it. */
    faultsRoot: string
    /** A PostgreSQL data folder made once by initdb; each test file starts a copy. */
    pgTemplate: string
  }
}

/**
 * initdb once for the whole fault suite (it takes seconds), and `npm start`'s bundle built once: the
 * drills attack the product users run. Every cluster left running is stopped at the end.
 */
export default async function setup(project: TestProject) {
  const bundle = await buildServerBundleForRun()
  project.provide("serverBundle", bundle.file)
  const root = mkdtempSync(join(tmpdir(), "faults-"))
  execFileSync("chmod", ["755", root])
  project.provide("faultsRoot", root)
  project.provide("pgTemplate", initTemplate(root))
  return () => {
    bundle.remove()
    for (const entry of readdirSync(root)) {
      const data = join(root, entry, "data")
      if (existsSync(join(data, "postmaster.pid"))) {
        const [command, args] = asPostgres(join(postgresBin(), "pg_ctl"), ["stop", "-m", "immediate", "-D", data])
        try {
          execFileSync(command, [...args], { stdio: "pipe" })
        } catch {
          // already stopped
        }
      }
      // Embedded servers (DATA_DIR=<test>/pg, or a fresh clone's default) outlive a service the suite SIGKILLed.
      for (const embedded of [join(root, entry, "pg", "postmaster.pid"), join(root, entry, "clone", ".data", "postgres", "postmaster.pid")]) {
        if (!existsSync(embedded)) continue
        try {
          process.kill(Number(readFileSync(embedded, "utf8").split("\n")[0]), "SIGQUIT")
        } catch {
          // already stopped
        }
      }
    }
    if (process.env["KEEP_FAULT_LOGS"] === undefined) rmSync(root, { recursive: true, force: true })
    else console.log(`fault suite: servers' logs kept in ${root}`)
  }
}
