// The capacity endpoint's in-process work (CapacityInProcess.ts) on one body, `warmups` times and
// then `calls` times, on the demo network at a fixed instant (months before the bodies' purchase
// date, as the runs of results/ were: counts of different days compare); prints the last answer's
// SHA-256 and length. Run under
// callgrind by capacity-instructions, which counts N calls as the difference between a run of 2N and
// one of N.
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { answerVariantA, answerVariantB, demoSnapshot } from "./CapacityInProcess.ts"

const [variant, bodyFile, warmups, calls] = process.argv.slice(2)
const body = readFileSync(bodyFile ?? "", "utf8")
const snapshot = demoSnapshot()
const NOW = Date.parse("2026-12-01T12:00:00-05:00")
const [answer, label] = variant === "A" ? [answerVariantA, "variant A"] : [answerVariantB, "variant B"]
let last = answer(snapshot, body, label, NOW)
const times = Number(warmups) + Number(calls)
for (let i = 0; i < times; i++) last = answer(snapshot, body, label, NOW)
console.log(JSON.stringify({ sha256: createHash("sha256").update(last).digest("hex"), bytes: last.byteLength }))
