import { Result, Schema } from "effect"
import { BenchmarkFailure } from "../Benchmark.ts"

export interface Answer {
  readonly status: number
  readonly text: string
}

export const post = async (url: string, body: string, headers: Readonly<Record<string, string>>): Promise<Answer> => {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body })
  return { status: response.status, text: await response.text() }
}

export const get = async (url: string, token: string): Promise<Answer> => {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } })
  return { status: response.status, text: await response.text() }
}

/** The parts of a load endpoint's 200 answer (LoadAccepted or LoadSummary) a benchmark checks. */
const LoadAnswer = Schema.Struct({ processCode: Schema.String, failed: Schema.optional(Schema.Number) })
const LoadState = Schema.Struct({
  status: Schema.String,
  totals: Schema.Struct({ received: Schema.Number, accepted: Schema.Number, persisted: Schema.Number, failed: Schema.Number })
})

const decodeOrFail = <S extends Schema.ConstraintDecoder<unknown>>(schema: S, what: string, answer: Answer): S["Type"] =>
  Result.getOrElse(Schema.decodeUnknownResult(Schema.fromJsonString(schema))(answer.text), () => {
    throw new BenchmarkFailure(`${what}: unexpected answer ${answer.status} ${answer.text.slice(0, 300)}`)
  })

/** The process code and failed count of a load endpoint's 200 answer; undefined when the text is not one. */
export const loadAnswer = (text: string): typeof LoadAnswer.Type | undefined =>
  Result.getOrUndefined(Schema.decodeUnknownResult(Schema.fromJsonString(LoadAnswer))(text))

/** A 200 where every product was accepted; anything else means the benchmark measured the wrong thing. */
export const acceptedLoad = (answer: Answer, what: string): string => {
  if (answer.status !== 200) throw new BenchmarkFailure(`${what} answered ${answer.status}: ${answer.text.slice(0, 300)}`)
  const load = decodeOrFail(LoadAnswer, what, answer)
  if ((load.failed ?? 0) > 0) throw new BenchmarkFailure(`${what}: ${load.failed} products failed validation: ${answer.text.slice(0, 300)}`)
  return load.processCode
}

export const loadState = async (baseUrl: string, processCode: string, token: string) =>
  decodeOrFail(LoadState, `GET /v1/loads/${processCode}`, await get(`${baseUrl}/v1/loads/${processCode}`, token))

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export type LoadState = typeof LoadState.Type

/** The statuses a load ends in. */
export const FINAL = new Set(["COMPLETED", "COMPLETED_WITH_ERRORS", "FAILED"])

/** Polls the load until it reaches a final status; its state and performance.now() of the first poll that saw it. */
export const waitFinal = async (
  baseUrl: string,
  processCode: string,
  token: string,
  timeoutMs: number,
  pollMs = 50
): Promise<{ readonly state: LoadState; readonly at: number }> => {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const state = await loadState(baseUrl, processCode, token)
    if (FINAL.has(state.status)) return { state, at: performance.now() }
    if (performance.now() > deadline) throw new BenchmarkFailure(`load ${processCode} not finished within ${timeoutMs / 1000} s: ${state.status} ${JSON.stringify(state.totals)}`)
    await sleep(pollMs)
  }
}

/** Polls the load until it is COMPLETED; resolves with performance.now() of the first poll that saw it. */
export const waitCompleted = async (baseUrl: string, processCode: string, token: string, timeoutMs: number): Promise<number> => {
  const { at, state } = await waitFinal(baseUrl, processCode, token, timeoutMs)
  if (state.status !== "COMPLETED") throw new BenchmarkFailure(`load ${processCode} ended ${state.status}: ${JSON.stringify(state.totals)}`)
  return at
}
