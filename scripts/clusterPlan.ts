/** One process of a cluster: its name, its role and the environment that gives it that role. */
export interface ClusterProcess {
  readonly name: string
  readonly role: "api" | "worker" | "capacity"
  readonly port: number
  readonly env: Readonly<Record<string, string>>
  /** Node.js flags of this role, after `npm start`'s own (scripts/serverNodeFlags.ts). */
  readonly nodeFlags: ReadonlyArray<string>
}

/**
 * A worker process: consumers of the product batches stream on its event loop (a thread of their
 * own would only add its heap), and room in its old generation before the first full collections.
 * With npm start's flags alone, V8 starts the old generation of a ~20 MiB heap small and keeps it
 * tight: a 200k-product load made a worker process run 94-108 full collections, and 64 MiB
 * initial took that to 13-14 and its CPU a product from 61-64 to 30-34 µs, for about 45 MiB more
 * peak RSS (117-120 to 161-163 MiB; docs/performance.md, "Worker processes"). The flag is not npm start's:
 * a process that takes uploads keeps the memory its file loads were measured at.
 */
export const WORKER_ROLE = {
  env: { RUN_WORKERS: "true", PERSIST_THREAD: "false" },
  nodeFlags: ["--initial-old-space-size=64"]
} as const

/** `node`'s arguments for one member: npm start's flags (`startFlags`), its role's after them, then the bundle. */
export const nodeArgumentsOf = (member: ClusterProcess, startFlags: ReadonlyArray<string>, bundle: string): ReadonlyArray<string> => [
  ...startFlags,
  ...member.nodeFlags,
  bundle
]

export interface ClusterShape {
  readonly api: number
  readonly workers: number
  readonly capacity: number
  /** The first process listens here, the next on the port after, and so on. */
  readonly basePort: number
  /** The API processes' internal listeners (/v1/handle-json-int), from here on. */
  readonly internalBasePort: number
}

/**
 * N API, M worker and K capacity processes of the same server against one PostgreSQL and one
 * Redis: every process serves every endpoint; the roles are what each is started for and sent.
 * - api: takes loads and publishes them (RUN_WORKERS=false); the only ones with an internal listener.
 * - worker: consumers of the product batches stream (RUN_WORKERS=true); its HTTP port is for health, so
 *   the workers run on its event loop (`WORKER_ROLE`).
 * - capacity: answers checkout (RUN_WORKERS=false), its network fed by the capacity events stream.
 * The same plan is the compose file's services, reproduced with plain processes on one machine.
 */
export const clusterPlan = (shape: ClusterShape): ReadonlyArray<ClusterProcess> => {
  const processes: Array<ClusterProcess> = []
  const add = (
    role: ClusterProcess["role"],
    count: number,
    env: (index: number) => Record<string, string>,
    nodeFlags: ReadonlyArray<string> = []
  ) => {
    for (let index = 0; index < count; index++) {
      const port = shape.basePort + processes.length
      const name = `${role}-${index + 1}`
      processes.push({ name, role, port, env: { PORT: String(port), CONSUMER_NAME: name, ...env(index) }, nodeFlags })
    }
  }
  add("api", shape.api, (index) => ({ RUN_WORKERS: "false", INTERNAL_PORT: String(shape.internalBasePort + index) }))
  add("worker", shape.workers, () => ({ ...WORKER_ROLE.env, INTERNAL_PORT: "0" }), WORKER_ROLE.nodeFlags)
  add("capacity", shape.capacity, () => ({ RUN_WORKERS: "false", INTERNAL_PORT: "0" }))
  return processes
}
