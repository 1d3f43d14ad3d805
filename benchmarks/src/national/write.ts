import { createWriteStream, mkdirSync, writeFileSync } from "node:fs"
import { once } from "node:events"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { nationalDefaults, nationalNetwork } from "./NationalNetwork.ts"

/**
 * Writes the national network to files (benchmarks/README.md, "The national network"):
 *   network.json        the document without stock (PUT /v1/network as is)
 *   stock.ndjson        one stock row {node, sku, units} a line, for a stock feed
 *   with-stock.json     with --embedded: the document with the stock embedded (today's format)
 *
 *   npx tsx benchmarks/src/national/write.ts --out /tmp/national [--skus 100000] [--seed 25] [--embedded]
 */
const { values } = parseArgs({
  options: {
    out: { type: "string" },
    skus: { type: "string", default: String(nationalDefaults.skus) },
    seed: { type: "string", default: String(nationalDefaults.seed) },
    embedded: { type: "boolean", default: false }
  }
})
if (values.out === undefined) throw new Error("--out DIR is required")
const out = values.out
mkdirSync(out, { recursive: true })
const national = nationalNetwork({ skus: Number(values.skus), seed: Number(values.seed) })
writeFileSync(join(out, "network.json"), JSON.stringify(national.network))

const writeRows = async (file: string, head: string, separator: string, tail: string): Promise<number> => {
  const stream = createWriteStream(file)
  let rows = 0
  let chunk = head
  for (const row of national.stockRows()) {
    chunk += (rows === 0 ? "" : separator) + JSON.stringify(row)
    rows++
    if (chunk.length > 1 << 20) {
      if (!stream.write(chunk)) await once(stream, "drain")
      chunk = ""
    }
  }
  stream.end(chunk + tail)
  await once(stream, "finish")
  return rows
}

const rows = await writeRows(join(out, "stock.ndjson"), "", "\n", "\n")
if (values.embedded) {
  const document = JSON.stringify(national.network)
  await writeRows(join(out, "with-stock.json"), `${document.slice(0, document.lastIndexOf("[]"))}[`, ",", "]}")
}
process.stdout.write(`${JSON.stringify({ ...national.shape, stockRows: rows, out })}\n`)
