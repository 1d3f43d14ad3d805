// Splits the four CSV files into partitions as /handle-csv does and keeps them (with the headers) in a folder, for join-task.ts.
// Usage: npx tsx benchmarks/csv/split-keep.ts <folder> <productsCsv> <hierarchiesCsv> <barcodesCsv> <attributesCsv>
import { CsvLayouts } from "@retail/ingest"
import { Effect, Stream } from "effect"
import { createReadStream, cpSync, statSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"
import { tmpdir } from "node:os"
import { makeCsvPartitions, partitionCountFor } from "../../services/upload/src/csv/CsvPartitions.ts"
import { partitionCsvFile } from "../../services/upload/src/csv/CsvPartSplitter.ts"

const [out, ...paths] = process.argv.slice(2)
const fileStream = (path: string) =>
  Stream.fromAsyncIterable(createReadStream(path, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>, (e) => new Error(String(e)))
const bytes = paths.reduce((s, p) => s + statSync(p).size, 0)
await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
  const partitions = yield* makeCsvPartitions(tmpdir(), partitionCountFor(bytes))
  const names = ["productsCsv", "hierarchiesCsv", "barcodesCsv", "attributesCsv"] as const
  const headers: Record<string, unknown> = {}
  for (let i = 0; i < 4; i++) {
    const h = yield* partitionCsvFile(fileStream(paths[i]!), CsvLayouts[names[i]!], partitions)
    headers[names[i]!] = { fields: h.fields, delimiter: h.delimiter }
  }
  yield* partitions.flush
  cpSync(dirname(partitions.path(0)), out!, { recursive: true })
  writeFileSync(`${out}/headers.json`, JSON.stringify({ count: partitions.count, headers }))
})))
