// POST /v1/load-products's own work (the token check and LoadIntake: validate, record the load,
// publish) as today's server does it, in a runtime of its own, behind an interface of promises,
// strings and numbers. The Effect 4 candidate of issue 19 (benchmarks/effect4/src/loadProductsApi.ts)
// imports this file from its own process, with its own install of effect: only promises and plain
// values pass between the two installs. Infrastructure as the server's when DATABASE_URL
// and REDIS_URL are unset: the embedded PGlite (DATA_DIR, memory:// in the benchmarks) and the
// in-process queue.
import { LoadResult } from "@retail/api"
import { MemoryStreamQueue } from "@retail/queue"
import { LoadIntake, LoadOwner, ProductPublisher, TokenVerifier, UploadConfig } from "@retail/service-upload"
import { Database, LoadRepository, Outbox } from "@retail/store"
import { Effect, Exit, Layer, ManagedRuntime, Option, Schema } from "effect"

export interface HostAnswer {
  readonly status: number
  readonly body: string
}

export interface LoadIntakeHost {
  /** The caller's company when the bearer token is valid and carries products:write, else an answer (401 or 403). */
  readonly company: (authorization: string | undefined) => Promise<string | HostAnswer>
  /** LoadIntake.accept, its result encoded as the endpoint's success schema (LoadResult) encodes it. */
  readonly accept: (company: string, products: ReadonlyArray<unknown>) => Promise<HostAnswer>
  readonly dispose: () => Promise<void>
}

const encodeResult = Schema.encodeSync(LoadResult)

export const makeLoadIntakeHost = async (): Promise<LoadIntakeHost> => {
  const database = Database.layer({
    url: Option.fromNullishOr(process.env["DATABASE_URL"]),
    dataDir: process.env["DATA_DIR"] ?? Database.IN_MEMORY,
    poolSize: 10
  })
  const live = Layer.mergeAll(LoadIntake.layer, TokenVerifier.layer).pipe(
    Layer.provide(ProductPublisher.layer),
    Layer.provide(LoadOwner.layer),
    Layer.provide(UploadConfig.layer),
    Layer.provide(Layer.mergeAll(LoadRepository.layer, Outbox.layer)),
    Layer.provide(database),
    Layer.provide(MemoryStreamQueue.layer)
  )
  const runtime = ManagedRuntime.make(live)
  await runtime.runPromise(Effect.void)
  const plain = (status: number, body: string): HostAnswer => ({ status, body })
  return {
    company: async (authorization) => {
      const token = authorization?.startsWith("Bearer ") ? authorization.slice(7).trim() : undefined
      if (token === undefined) return plain(401, "")
      const exit = await runtime.runPromiseExit(Effect.flatMap(TokenVerifier, (verifier) => verifier.verify(token)))
      if (Exit.isFailure(exit)) return plain(401, "")
      const principal = exit.value
      return principal.scopes.has("products:write") && principal.company !== null ? principal.company : plain(403, "")
    },
    accept: async (company, products) => {
      const exit = await runtime.runPromiseExit(Effect.flatMap(LoadIntake, (intake) => intake.accept({ company, source: "LOAD_PRODUCTS", products })))
      if (Exit.isFailure(exit)) return plain(500, JSON.stringify({ message: "the load could not be accepted" }))
      return plain(200, JSON.stringify(encodeResult(exit.value)))
    },
    dispose: () => runtime.dispose()
  }
}
