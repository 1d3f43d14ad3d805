import { Effect } from "effect"
import { readFileSync } from "node:fs"

/** `prefix` + `{},{},...` + `suffix`, as close to `bytes` as fits: ~11 M objects in 32 MiB. */
export const objectBomb = (bytes: number, prefix: string, suffix: string): Buffer => {
  const count = Math.floor((bytes - prefix.length - suffix.length + 1) / 3)
  return Buffer.from(prefix + "{},".repeat(count - 1) + "{}" + suffix)
}

export interface Answer {
  readonly status: number
  readonly text: string
}

/** A request whose failure (the server died, the connection was cut) is an answer with status 0, not a defect. */
export const send = (url: string, init: RequestInit) =>
  Effect.promise(() =>
    fetch(url, init).then(
      async (response): Promise<Answer> => ({ status: response.status, text: await response.text() }),
      (error: unknown): Answer => ({ status: 0, text: `request failed: ${String(error)}` })
    )
  )

/** The same request `count` times at once. */
export const severalAtOnce = (count: number, url: string, init: () => RequestInit) =>
  Effect.all(Array.from({ length: count }, () => send(url, init())), { concurrency: count })

/** A process's peak resident memory so far (VmHWM), in MiB. */
export const peakRssMib = (pid: number | undefined) =>
  Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "0") / 1024)

