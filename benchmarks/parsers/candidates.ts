// One benchmark candidate per process (so peak RSS is its own): prints a JSON line with bytes, items, ms, RSS.
// Each candidate first imports its libraries (not timed), then returns the timed run; a process loads only what it measures.
import { createReadStream, readFileSync, statSync } from "node:fs"

const CHUNK = 64 * 1024
const stream = (file: string) => createReadStream(file, { highWaterMark: CHUNK })

type Run = (file: string, index: number) => Promise<number>
type Candidate = () => Promise<Run>

interface Pushable<A> {
  push(chunk: Uint8Array, emit: (a: A) => void): { readonly message: string } | undefined
}

const pushAll = async <A>(file: string, parser: Pushable<A>, end: (emit: (a: A) => void) => { readonly message: string } | undefined): Promise<number> => {
  let n = 0
  const emit = (): void => {
    n++
  }
  for await (const chunk of stream(file)) {
    const error = parser.push(chunk as Buffer, emit)
    if (error !== undefined) throw new Error(error.message)
  }
  const error = end(emit)
  if (error !== undefined) throw new Error(error.message)
  return n
}

const udsv = async (kind: "stringArrs" | "stringObjs"): Promise<Run> => {
  const { inferSchema, initParser } = await import("udsv")
  return async (file) => {
    const decoder = new TextDecoder()
    let parser: import("udsv").Parser | undefined
    let n = 0
    const onRow = (): void => {
      n++
    }
    for await (const chunk of stream(file)) {
      const text = decoder.decode(chunk as Buffer, { stream: true })
      parser ??= initParser(inferSchema(text))
      if (kind === "stringArrs") parser.chunk<Array<string>>(text, parser.stringArrs, onRow)
      else parser.chunk<Record<string, string>>(text, parser.stringObjs, onRow)
    }
    parser?.end()
    return n
  }
}

const streamJson = async (options: { streamValues?: boolean }): Promise<Run> => {
  const { default: chain } = await import("stream-chain")
  const { parser } = await import("stream-json")
  const { pick } = await import("stream-json/filters/pick.js")
  const { streamArray } = await import("stream-json/streamers/stream-array.js")
  return (file) =>
    new Promise((resolve, reject) => {
      let n = 0
      const pipeline = chain([stream(file), parser(options), pick({ filter: "products" }), streamArray()])
      pipeline.on("data", () => {
        n++
      })
      pipeline.on("end", () => resolve(n))
      pipeline.on("error", reject)
    })
}

const papa = async (header: boolean): Promise<Run> => {
  const { default: Papa } = await import("papaparse")
  return (file) =>
    new Promise((resolve, reject) => {
      let n = 0
      Papa.parse<unknown>(stream(file), {
        header,
        chunk: (results) => {
          n += results.data.length
        },
        complete: () => resolve(n),
        error: (e) => reject(e)
      })
    })
}

const csvParse = async (columns: boolean): Promise<Run> => {
  const { parse } = await import("csv-parse")
  return async (file) => {
    let n = 0
    for await (const row of stream(file).pipe(parse({ columns, bom: true, relax_column_count: true }))) if (row !== undefined) n++
    return n
  }
}

export const candidates: Record<string, Candidate> = {
  "read-only": async () => async (file) => {
    let n = 0
    for await (const chunk of stream(file)) n += (chunk as Buffer).length > 0 ? 1 : 0
    return n
  },
  "json:scanner": async () => {
    const { JsonProductScanner } = await import("../../packages/ingest/src/json/JsonProductScanner.ts")
    return (file) => {
      const scanner = new JsonProductScanner()
      return pushAll(file, scanner, () => scanner.end())
    }
  },
  "json:scanner-effect-stream": async () => {
    const { scanJsonProducts } = await import("../../packages/ingest/src/json/JsonProductStream.ts")
    const { Effect, Stream } = await import("effect")
    return (file) =>
      Stream.fromAsyncIterable(stream(file) as AsyncIterable<Buffer>, (e) => e).pipe(
        scanJsonProducts(),
        Stream.grouped(500),
        Stream.runFold(() => 0, (n, batch) => n + batch.length),
        Effect.runPromise
      )
  },
  "json:JSON.parse-whole-file": async () => async (file) => {
    const doc = JSON.parse(readFileSync(file, "utf8")) as { products: ReadonlyArray<unknown> }
    let n = 0
    for (const p of doc.products) if (p !== undefined) n++
    return n
  },
  "json:stream-json-streamArray": () => streamJson({}),
  "json:stream-json-streamArray-streamValues-false": () => streamJson({ streamValues: false }),
  "csv:mine-rows": async () => {
    const { CsvReader } = await import("../../packages/ingest/src/csv/CsvReader.ts")
    return (file) => {
      const reader = new CsvReader()
      return pushAll(file, reader, (emit) => reader.end(emit))
    }
  },
  "csv:mine-typed-records": async () => {
    const { CsvRecordReader } = await import("../../packages/ingest/src/csv/CsvRecordReader.ts")
    const { AttributesCsv, BarcodesCsv, HierarchiesCsv, ProductsCsv } = await import("../../packages/ingest/src/csv/CsvLayout.ts")
    const layouts = [ProductsCsv, HierarchiesCsv, BarcodesCsv, AttributesCsv]
    return (file, i) => {
      const reader = new CsvRecordReader(layouts[i % layouts.length]!)
      return pushAll(file, reader, (emit) => reader.end(emit))
    }
  },
  "csv:udsv-stringArrs": () => udsv("stringArrs"),
  "csv:udsv-stringObjs": () => udsv("stringObjs"),
  "csv:papaparse-arrays": () => papa(false),
  "csv:papaparse-objects": () => papa(true),
  "csv:csv-parse-arrays": () => csvParse(false),
  "csv:csv-parse-columns": () => csvParse(true)
}

const main = async (): Promise<void> => {
  const [name, ...files] = process.argv.slice(2)
  const candidate = name === undefined ? undefined : candidates[name]
  if (candidate === undefined || files.length === 0) {
    console.error(`usage: candidates.ts <${Object.keys(candidates).join("|")}> <file...>`)
    process.exit(2)
  }
  const run = await candidate()
  const bytes = files.reduce((sum, f) => sum + statSync(f).size, 0)
  const startRssMb = process.memoryUsage().rss / 1048576
  const start = performance.now()
  let items = 0
  for (let i = 0; i < files.length; i++) items += await run(files[i]!, i)
  const ms = performance.now() - start
  console.log(JSON.stringify({ name, bytes, items, ms, startRssMb, peakRssMb: process.resourceUsage().maxRSS / 1024 }))
}

if (process.argv[1]?.endsWith("candidates.ts")) {
  main().catch((e: unknown) => {
    console.error(e)
    process.exit(1)
  })
}
