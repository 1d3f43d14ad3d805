import { rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bundleModule } from "../../../scripts/buildServer.ts"
import { serverNodeFlags } from "../../../scripts/serverNodeFlags.ts"
import { type Benchmark, BenchmarkFailure, figure, type Figure } from "../Benchmark.ts"
import { runToEnd } from "../support/ChildProcess.ts"
import { capacityRequests } from "./Capacity.ts"

/** The cases: the capacity benchmark's bodies whose in-process cost the open issues track. */
const CASES: ReadonlyArray<{ readonly id: string; readonly items: number }> = [
  { id: "A", items: 5 },
  { id: "A", items: 20 },
  { id: "B-home-fixed", items: 5 },
  { id: "B-all-search", items: 5 },
  { id: "B-all-search", items: 20 }
]

const COLLECTED = /Collected : (\d+)/

/**
 * V8 compiles and collects on threads of its own by default, and under valgrind's scheduler when
 * they finish moves what the main thread runs: two runs of one bundle counted 412k and 818k
 * instructions a call for variant B all modes, 5 items. On one thread (`--single-threaded`: V8
 * marks, sweeps and compiles on the main thread, not concurrently, so the counts include what
 * npm start does on helper threads) two runs of every case agreed within 2%.
 */
const COUNTING_FLAGS = ["--single-threaded"] as const

interface LoopRun {
  readonly instructions: number
  readonly answer: string
}

/** Instructions callgrind counted over a whole run of the answer loop, and the answer it printed. */
const loopUnderCallgrind = async (bundle: string, variant: string, bodyFile: string, warmups: number, calls: number): Promise<LoopRun> => {
  const { stderr, stdout } = await runToEnd(
    "valgrind",
    ["--tool=callgrind", "--callgrind-out-file=/dev/null", "node", ...serverNodeFlags(), ...COUNTING_FLAGS, bundle, variant, bodyFile, String(warmups), String(calls)],
    `callgrind on the answer loop (${variant}, ${calls} calls)`
  )
  const collected = COLLECTED.exec(stderr)?.[1]
  if (collected === undefined) throw new BenchmarkFailure(`callgrind printed no instruction count: ${stderr.slice(-300)}`)
  return { instructions: Number(collected), answer: stdout.trim() }
}

/**
 * Issue 25 (and 22)'s per-request cost, counted instead of timed: the machine's speed moves timed
 * figures by 2x and more from one hour to the next, and callgrind counts instructions, not time
 * (on one V8 thread, `COUNTING_FLAGS`). Each case runs the bundled in-process path twice after the
 * same warm-up, N and 2N calls, both at once: the difference is N calls of warm code (a run that
 * stopped right after its warm-up still had optimised code to compile, which made the count move
 * by 15%).
 */
export const capacityInstructions: Benchmark = {
  name: "capacity-instructions",
  description:
    "Instructions per request of the capacity endpoint's in-process work (decode, evaluate, encode; the capacity benchmark's bodies on the demo network, every plan reused), counted by valgrind's callgrind: a bundle built as the server is runs each body `warm-up + 2N` times and `warm-up + N` times under callgrind, with npm start's Node flags and --single-threaded (V8 compiling and collecting on the main thread, in turn: with its own threads, whose timing valgrind's scheduler moves, two runs of one bundle counted 412k and 818k a call); the figure is the difference over N. Two runs of one bundle on one thread agreed within 2% in every case; compare with --runs 3 when a change is small. Counts of the reports before this flag (results/capacity-instructions-{before-946c8a3,after-189d658-1,after-189d658-2,after-16463b2}.md) do not compare with later ones.",
  sizeUnit: "calls counted per case",
  defaultSize: 3000,
  // Node's start under callgrind counts 1.23-1.26G instructions, differing by up to 33M from one
  // run to the next: 20 calls (about 4M) drowned in it, and CI once counted fewer for 40 calls
  // than for 20. 500 calls count about 200M.
  smokeSize: 500,
  defaultRuns: 1,
  configuration: () => "no servers: the in-process answer path, bundled as the server is, under valgrind's callgrind with npm start's Node flags and --single-threaded",
  open: async (ctx) => {
    await runToEnd("valgrind", ["--version"], "valgrind (Debian package valgrind)").catch((error: unknown) => {
      throw new BenchmarkFailure(`capacity-instructions needs valgrind: ${error instanceof Error ? error.message : String(error)}`)
    })
    const bundle = await bundleModule("benchmarks/src/support/answerLoopMain.ts", join("dist", "bench", `answer-loop-${process.pid}.mjs`))
    const kinds = capacityRequests()
    // The smoke run (npm test) counts one case: node starts slowly under valgrind.
    const bodies = (ctx.scale === "smoke" ? CASES.slice(0, 1) : CASES).map(({ id, items }) => {
      const kind = kinds.find((k) => k.id === id)
      if (kind === undefined) throw new BenchmarkFailure(`no capacity request kind ${id}`)
      const file = join(tmpdir(), `capacity-instructions-${process.pid}-${id}-${items}.json`)
      writeFileSync(file, JSON.stringify(kind.body(items)))
      return { label: `${kind.label}, ${items} items`, variant: id === "A" ? "A" : "B", file }
    })
    const warmups = ctx.scale === "smoke" ? 200 : 3000
    ctx.note(`Warm-up ${warmups} calls per case, then ${ctx.size} counted; node ${process.version}, flags ${[...serverNodeFlags(), ...COUNTING_FLAGS].join(" ")}.`)
    return {
      run: async (run) => {
        const figures: Array<Figure> = []
        for (const body of bodies) {
          run.progress(`${body.label}: callgrind`)
          const [once, twice] = await Promise.all([
            loopUnderCallgrind(bundle, body.variant, body.file, warmups, run.size),
            loopUnderCallgrind(bundle, body.variant, body.file, warmups, 2 * run.size)
          ])
          if (once.answer !== twice.answer) throw new BenchmarkFailure(`${body.label}: the two runs answered differently (${once.answer} / ${twice.answer})`)
          if (twice.instructions <= once.instructions) throw new BenchmarkFailure(`${body.label}: ${2 * run.size} calls counted ${twice.instructions} instructions, no more than ${run.size} calls (${once.instructions})`)
          figures.push(figure(`${body.label}: instructions per request in-process (callgrind)`, "instructions", (twice.instructions - once.instructions) / run.size, { better: "lower" }))
        }
        return figures
      },
      close: async () => {
        for (const body of bodies) rmSync(body.file, { force: true })
        rmSync(bundle, { force: true })
        rmSync(`${bundle}.map`, { force: true })
      }
    }
  }
}
