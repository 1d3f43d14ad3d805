import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { BenchmarkFailure } from "../Benchmark.ts"
import { autocannon } from "../support/Autocannon.ts"
import { post } from "../support/Http.ts"
import { type ServerHandle, withServerLog } from "../support/ServerProcess.ts"
import { BENCH_CAPACITY_KEY } from "../support/Tokens.ts"
import { variantA } from "./Capacity.ts"

/**
 * The capacity load of the benchmarks that measure it beside product loads (capacity-beside-load,
 * embedded): variant A of `items` items at `connections` connections (autocannon), its body in a
 * file of `folder`.
 */
export const variantALoad = (folder: string, items: number, connections: number) => {
  const kind = variantA()
  const bodyText = JSON.stringify(kind.body(items))
  const bodyFile = join(folder, `capacity-A-${items}.json`)
  writeFileSync(bodyFile, bodyText)
  const headers = { "content-type": "application/json", authorization: `Bearer ${BENCH_CAPACITY_KEY}` }

  const load = (server: ServerHandle, amountOrSeconds: { readonly amount?: number; readonly seconds: number }) =>
    withServerLog(server, () => autocannon({ url: `${server.url}${kind.path}`, connections, method: "POST", headers, bodyFile, ...amountOrSeconds }))

  /** The body checked on `server` (every item routed, none refused), then `warmUp` requests: its steady state, not its first compilation. */
  const checkAndWarm = async (server: ServerHandle, warmUp: number) => {
    const answer = await post(`${server.url}${kind.path}`, bodyText, headers)
    if (answer.status !== 200) throw new BenchmarkFailure(`variant A, ${items} items: answered ${answer.status} ${answer.text.slice(0, 300)}`)
    const wrong = kind.wrongAnswer(answer.text, items)
    if (wrong !== undefined) throw new BenchmarkFailure(`variant A, ${items} items: not the expected answer: ${wrong}`)
    await load(server, { amount: warmUp, seconds: 10 })
  }

  return { load, checkAndWarm }
}
