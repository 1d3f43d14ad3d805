import { Effect, type Scope } from "effect"
import * as Jose from "jose"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { serverArgs } from "../../support/ServerBundle.ts"
import { type Child, freePort, spawnChild, waitUntil } from "./Processes.ts"

export const JWT_SECRET = "fault-suite-secret-with-enough-entropy-0123456789"
export const CAPACITY_KEY = "fault-suite-capacity-key"

export interface App {
  readonly base: string
  readonly child: Child
  readonly logFile: string
  /** The last lines the process wrote, for failure messages. */
  readonly logTail: () => string
}

/** Embedded defaults: the child must not inherit the real servers CI points the tests at. */
export const EMBEDDED = { unset: ["DATABASE_URL", "REDIS_URL"] } as const

/**
 * `npm start`'s server (its bundle and Node.js flags, with `nodeFlags` after them: a role's) as a child process of
 * the test (its own PORT), started with `env` on top of the suite's defaults; answers once GET /health does.
 */
export const startApp = (
  name: string,
  dir: string,
  env: Record<string, string>,
  options: { readonly unset?: ReadonlyArray<string>; readonly nodeFlags?: ReadonlyArray<string> } = {}
): Effect.Effect<App, never, Scope.Scope> =>
  Effect.gen(function*() {
    // A given PORT lets a restarted server answer where its clients already send.
    const port = env["PORT"] !== undefined ? Number(env["PORT"]) : yield* freePort
    const logFile = join(dir, `${name}.log`)
    const child = yield* spawnChild(process.execPath, serverArgs(options.nodeFlags), {
      logFile,
      ...(options.unset === undefined ? {} : { unset: options.unset }),
      env: {
        HOST: "127.0.0.1",
        PORT: String(port),
        JWT_SECRET,
        CAPACITY_API_KEYS: CAPACITY_KEY,
        CONSUMER_NAME: `${name}-${port}`,
        // The internal listener (/v1/handle-json-int) on a free port: several servers run at once.
        INTERNAL_PORT: "0",
        DATABASE_POOL_SIZE: "5",
        ...env
      }
    })
    const base = `http://127.0.0.1:${port}`
    const logTail = () => {
      try {
        return readFileSync(logFile, "utf8").split("\n").slice(-40).join("\n")
      } catch {
        return ""
      }
    }
    yield* waitUntil(`${name} /health`, Effect.gen(function*() {
      if (!(yield* child.isRunning)) return yield* Effect.die(new Error(`${name} exited during start-up:\n${logTail()}`))
      const response = yield* Effect.tryPromise(() => fetch(`${base}/health`))
      if (response.status !== 200) return yield* Effect.fail(new Error(`health ${response.status}`))
    }), "90 seconds")
    return { base, child, logFile, logTail }
  })

export const token = (company: string, scope = "products:write products:read") =>
  Effect.promise(() =>
    new Jose.SignJWT({ scope, company }).setProtectedHeader({ alg: "HS256" }).setIssuedAt().setExpirationTime("1h")
      .sign(new TextEncoder().encode(JWT_SECRET)))

export interface Response {
  readonly status: number
  readonly text: string
  readonly json: () => unknown
}

/** One HTTP request; a connection failure is a typed error (the server may be down on purpose). */
/** A request that hangs fails after 60 s (fetch's own bound is 300 s), so that a probe's deadline holds. */
export const call = (base: string, path: string, init: RequestInit = {}) =>
  Effect.tryPromise({
    try: async (): Promise<Response> => {
      const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(60_000), ...init })
      const text = await response.text()
      return { status: response.status, text, json: () => JSON.parse(text) as unknown }
    },
    catch: (cause) => new Error(`${init.method ?? "GET"} ${path}: ${cause instanceof Error ? `${cause.message} ${String(cause.cause)}` : String(cause)}`)
  })

export const postJson = (base: string, path: string, body: unknown, bearer: string) =>
  call(base, path, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
    body: JSON.stringify(body)
  })

export interface LoadViewBody {
  readonly processCode: string
  readonly status: string
  readonly failureReason?: string | null
  readonly totals: { readonly received: number; readonly accepted: number; readonly persisted: number; readonly failed: number }
}

export const loadStatus = (base: string, processCode: string, bearer: string) =>
  Effect.map(call(base, `/v1/loads/${processCode}`, { headers: { authorization: `Bearer ${bearer}` } }), (r) => r.json() as LoadViewBody)
