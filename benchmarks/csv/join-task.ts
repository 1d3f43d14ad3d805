// The join threads' work alone, in this thread: runCsvJoinTask over partitions kept by split-keep.ts, several rounds.
// Usage: npx tsx benchmarks/csv/join-task.ts <folder of split-keep.ts> [rounds]
// Prints CPU µs per product row and a digest of the results (products' bytes, accepted flags, errors) to compare builds.
// Each task writes into one reused shared output buffer, as the server's tasks do (CsvJoinedSpool.ts).
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { runCsvJoinTask, type CsvJoinTask } from "../../services/upload/src/csv/CsvJoinTask.ts"

const [dir, roundsArg = "3"] = process.argv.slice(2)
const { count, headers } = JSON.parse(readFileSync(`${dir}/headers.json`, "utf8")) as { count: number; headers: CsvJoinTask["headers"] }
const output = new SharedArrayBuffer(8 * 1024 * 1024)
for (let round = 0; round < Number(roundsArg); round++) {
  const digest = createHash("sha256")
  let items = 0
  let accepted = 0
  const cpu0 = process.cpuUsage()
  for (let p = 0; p < count; p++) {
    const result = await runCsvJoinTask({ path: `${dir}/partition-${p}.rows`, company: "BENCH", headers, output })
    digest.update(result.products).update(result.accepted).update(JSON.stringify(result.errors))
    items += result.accepted.length
    accepted += result.products.length
  }
  const cpu = process.cpuUsage(cpu0)
  const ms = (cpu.user + cpu.system) / 1000
  console.log(JSON.stringify({ round, items, productBytes: accepted, cpuMs: Math.round(ms), usPerItem: +(ms * 1000 / items).toFixed(1), digest: digest.digest("hex").slice(0, 16) }))
}
