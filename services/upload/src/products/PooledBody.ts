import { Data, Effect, type Scope } from "effect"
import { finished, type Readable } from "node:stream"
import type { BufferPool } from "../publish/BufferPool.ts"

/** Why a body could not be read into memory. */
export class BodyNotRead extends Data.TaggedError("BodyNotRead")<{ readonly reason: "TooLarge" | "Failed" }> {}

const FIRST_BUFFER_BYTES = 64 * 1024

/**
 * Reads a request body into a buffer of `buffers`, given back when the scope closes, as Effect's
 * `request.arrayBuffer` reads one into a new buffer (and with its behaviour: past `maxBytes` the rest
 * is drained, not read, so that the answer can still be sent; an interrupted read destroys the
 * stream). A new buffer per body is megabytes of external memory, which V8 counts towards its next
 * full collection. `declaredBytes` (the Content-Length, at most `maxBytes`) sizes the buffer at once.
 */
export const readBodyInto = (
  source: Readable,
  maxBytes: number,
  declaredBytes: number,
  buffers: Pick<BufferPool, "take" | "give">
): Effect.Effect<Uint8Array, BodyNotRead, Scope.Scope> =>
  Effect.gen(function*() {
    // Whichever buffer holds the body when the scope closes goes back to the pool.
    const lease = yield* Effect.acquireRelease(
      Effect.sync(() => ({ buffer: buffers.take(Math.max(declaredBytes, FIRST_BUFFER_BYTES)) })),
      (held) => Effect.sync(() => buffers.give(held.buffer))
    )
    return yield* Effect.callback<Uint8Array, BodyNotRead>((resume) => {
      let length = 0
      const onData = (chunk: Buffer) => {
        if (length + chunk.length > maxBytes) {
          // Drained, not read, as Effect's reader does for server requests: the 413 can still be sent.
          stop()
          const drained = finished(source, { readable: true, writable: false }, () => drained())
          source.resume()
          return resume(Effect.fail(new BodyNotRead({ reason: "TooLarge" })))
        }
        if (length + chunk.length > lease.buffer.length) {
          const grown = buffers.take(Math.min(Math.max(2 * lease.buffer.length, length + chunk.length), maxBytes))
          grown.set(lease.buffer.subarray(0, length))
          buffers.give(lease.buffer)
          lease.buffer = grown
        }
        lease.buffer.set(chunk, length)
        length += chunk.length
      }
      const ended = finished(source, { readable: true, writable: false }, (error) => {
        stop()
        if (error === undefined || error === null) return resume(Effect.succeed(lease.buffer.subarray(0, length)))
        source.destroy()
        resume(Effect.fail(new BodyNotRead({ reason: "Failed" })))
      })
      const stop = () => {
        source.off("data", onData)
        ended()
      }
      source.on("data", onData)
      return Effect.sync(() => {
        stop()
        source.destroy()
      })
    })
  })
