import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import { execFileSync } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { freePort, run } from "./Processes.ts"

/** The newest PostgreSQL server binaries installed the Debian way, else the ones on the PATH (a Nix shell). */
export const postgresBin = (): string => {
  const root = "/usr/lib/postgresql"
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : []
  const version = versions[0]
  if (version !== undefined) return join(root, version, "bin")
  try {
    return dirname(execFileSync("which", ["pg_ctl"]).toString().trim())
  } catch {
    throw new Error(`no PostgreSQL server binaries under ${root} nor on the PATH`)
  }
}

const isRoot = () => process.getuid?.() === 0

/** PostgreSQL refuses to run as root: then its commands run as the `postgres` OS user. */
export const asPostgres = (command: string, args: ReadonlyArray<string>): readonly [string, ReadonlyArray<string>] =>
  isRoot() ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args]

/** A directory the PostgreSQL OS user owns (root: chowned to `postgres`). */
export const postgresOwnedDir = (parent: string, prefix: string): string => {
  const dir = mkdtempSync(join(parent, prefix))
  if (isRoot()) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim())
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim())
    chownSync(dir, uid, gid)
  }
  return dir
}

/** initdb once per suite (global setup); each test file starts a copy of it. */
export const initTemplate = (parent: string): string => {
  const dir = postgresOwnedDir(parent, "pg-template-")
  const data = join(dir, "data")
  const [command, args] = asPostgres(join(postgresBin(), "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"])
  execFileSync(command, [...args], { stdio: "pipe" })
  return data
}

export interface PostgresServer {
  readonly port: number
  readonly url: string
  readonly start: Effect.Effect<void, Error>
  /** `fast`: aborts open transactions and disconnects every client at once. */
  readonly stop: Effect.Effect<void, Error>
}

/**
 * A private PostgreSQL cluster (a copy of the suite's template) on its own port, started now and
 * stopped (immediate mode) when the scope closes. Socket files live in the cluster's folder.
 */
export const startPostgres = (template: string, parent: string): Effect.Effect<PostgresServer, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const port = yield* freePort
    const dir = postgresOwnedDir(parent, "pg-")
    const data = join(dir, "data")
    yield* run("cp", ["-a", template, data])
    const pgCtl = join(postgresBin(), "pg_ctl")
    const ctl = (args: ReadonlyArray<string>) => {
      const [command, full] = asPostgres(pgCtl, args)
      return run(command, full, { timeout: "60 seconds" }).pipe(Effect.asVoid)
    }
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`
    const start = ctl(["start", "-w", "-t", "60", "-D", data, "-l", join(dir, "postgres.log"), "-o", options])
    const stop = ctl(["stop", "-w", "-t", "60", "-m", "fast", "-D", data])
    yield* Effect.acquireRelease(start, () => Effect.ignore(ctl(["stop", "-w", "-t", "60", "-m", "immediate", "-D", data])))
    return { port, url: `postgres://postgres@127.0.0.1:${port}/postgres`, start, stop }
  })

/** Runs `f` with a SQL client of its own on `url` (a fresh pool: a restarted server is no problem). */
export const withSql = <A, E>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 2 })))
