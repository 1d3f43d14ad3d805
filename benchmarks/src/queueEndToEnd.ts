/**
 * A 20k-product /v1/handle-json load from its first byte to COMPLETED on `npm start`'s bundle
 * (run `npm run build` first) with its embedded defaults, once per queue: QUEUE=memory and
 * QUEUE=postgres, each on a fresh DATA_DIR in the OS temp folder. Polls the load every 50 ms.
 * `npx tsx benchmarks/src/queueEndToEnd.ts [products] [loads per queue]`.
 */
import { sampleProducts } from "@retail/testkit"
import { spawn } from "node:child_process"
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Jose from "jose"

const PRODUCTS = Number(process.argv[2] ?? "20000")
const LOADS = Number(process.argv[3] ?? "3")
const SECRET = "queue-bench-secret-with-enough-entropy-0123456789"

const freePort = () =>
  new Promise<number>((done) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => done(port))
    })
  })

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

const peakRssMiB = (pid: number) => {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return match === null ? Number.NaN : Number(match[1]) / 1024
}

const run = async (queue: "memory" | "postgres") => {
  const root = mkdtempSync(join(tmpdir(), "qe2e-"))
  chmodSync(root, 0o755)
  const port = await freePort()
  const env: Record<string, string> = { ...process.env as Record<string, string> }
  delete env["DATABASE_URL"]
  delete env["REDIS_URL"]
  const child = spawn(process.execPath, ["--max-semi-space-size=2", "--max-old-space-size=512", "--no-parallel-scavenge", "dist/server.mjs"], {
    env: { ...env, QUEUE: queue, DATA_DIR: join(root, "pg"), PORT: String(port), INTERNAL_PORT: String(await freePort()), HOST: "127.0.0.1", JWT_SECRET: SECRET, CAPACITY_API_KEYS: "k" },
    stdio: ["ignore", "ignore", "inherit"]
  })
  const base = `http://127.0.0.1:${port}`
  try {
    for (let i = 0; ; i++) {
      if (await fetch(`${base}/health`).then((r) => r.ok, () => false)) break
      if (i > 600) throw new Error("server did not start")
      await sleep(100)
    }
    const bearer = await new Jose.SignJWT({ scope: "products:write products:read", company: "BENCH" })
      .setProtectedHeader({ alg: "HS256" }).setIssuedAt().setExpirationTime("1h").sign(new TextEncoder().encode(SECRET))
    const figures: Array<{ accepted: number; completed: number }> = []
    for (let load = 0; load < LOADS; load++) {
      const file = JSON.stringify({ products: sampleProducts(PRODUCTS, { prefix: `E${load}-` }) })
      const form = new FormData()
      form.append("productsJson", new Blob([file], { type: "application/json" }), "products.json")
      const started = performance.now()
      const response = await fetch(`${base}/v1/handle-json`, { method: "POST", headers: { authorization: `Bearer ${bearer}` }, body: form })
      const body = await response.text()
      if (response.status !== 200) throw new Error(`${response.status} ${body}`)
      const accepted = performance.now() - started
      const code = (JSON.parse(body) as { processCode: string }).processCode
      while (true) {
        const view = await (await fetch(`${base}/v1/loads/${code}`, { headers: { authorization: `Bearer ${bearer}` } })).json() as { status: string }
        if (view.status === "COMPLETED") break
        if (view.status === "FAILED") throw new Error(JSON.stringify(view))
        await sleep(50)
      }
      figures.push({ accepted, completed: performance.now() - started })
    }
    const rss = peakRssMiB(child.pid ?? 0)
    console.log(
      `QUEUE=${queue}: ${figures.map((f) => `${(f.completed / 1000).toFixed(2)} s (200 after ${(f.accepted / 1000).toFixed(2)} s)`).join(", ")}; ` +
        `peak RSS of the server ${rss.toFixed(0)} MiB`
    )
  } finally {
    child.kill("SIGTERM")
    await new Promise((done) => child.once("exit", done))
    rmSync(root, { recursive: true, force: true })
  }
}

await run("memory")
await run("postgres")
