import { Effect } from "effect"
import type { PingFromThread } from "./PersistThreadSettings.ts"

/** The event loop's answer: how late it came (ms), and the checkout requests the server had taken then. */
export interface EventLoopAnswer {
  readonly lateMs: number
  readonly checkout: number
}

/**
 * The workers' thread's side of its ping to the server's event loop: `ping` posts one and resumes
 * with the milliseconds until the event loop answered it and what it answered (PersistThreadHost.ts
 * answers each as it gets to it); `answered` is called with each answer that arrives. An interrupted ping
 * (a timeout) forgets its id, so a late answer finds nothing to resume.
 */
export const eventLoopPing = (post: (ping: PingFromThread) => void) => {
  const waiting = new Map<number, (checkout: number) => void>()
  let next = 0
  const ping = Effect.callback<EventLoopAnswer>((resume) => {
    const id = next++
    const sent = performance.now()
    waiting.set(id, (checkout) => resume(Effect.succeed({ lateMs: performance.now() - sent, checkout })))
    post({ _tag: "Ping", id })
    return Effect.sync(() => waiting.delete(id))
  })
  const answered = (id: number, checkout: number): void => {
    waiting.get(id)?.(checkout)
    waiting.delete(id)
  }
  return { ping, answered }
}
