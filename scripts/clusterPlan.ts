/** One process of a cluster: its name, its role and the environment that gives it that role. */
export interface ClusterProcess {
  readonly name: string
  readonly role: "api" | "worker" | "capacity"
  readonly port: number
  readonly env: Readonly<Record<string, string>>
}

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
 *   the workers run on its event loop (PERSIST_THREAD=false): a thread of their own would only add its heap.
 * - capacity: answers checkout (RUN_WORKERS=false), its network fed by the capacity events stream.
 * The same plan is the compose file's services, reproduced with plain processes on one machine.
 */
export const clusterPlan = (shape: ClusterShape): ReadonlyArray<ClusterProcess> => {
  const processes: Array<ClusterProcess> = []
  const add = (role: ClusterProcess["role"], count: number, env: (index: number) => Record<string, string>) => {
    for (let index = 0; index < count; index++) {
      const port = shape.basePort + processes.length
      const name = `${role}-${index + 1}`
      processes.push({ name, role, port, env: { PORT: String(port), CONSUMER_NAME: name, ...env(index) } })
    }
  }
  add("api", shape.api, (index) => ({ RUN_WORKERS: "false", INTERNAL_PORT: String(shape.internalBasePort + index) }))
  add("worker", shape.workers, () => ({ RUN_WORKERS: "true", PERSIST_THREAD: "false", INTERNAL_PORT: "0" }))
  add("capacity", shape.capacity, () => ({ RUN_WORKERS: "false", INTERNAL_PORT: "0" }))
  return processes
}
