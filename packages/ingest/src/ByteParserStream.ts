import { Effect, Stream } from "effect"

/** A parser fed bytes chunk by chunk: it emits what each chunk completes and answers an error, or undefined. */
export interface ByteParser<A, Err> {
  push(chunk: Uint8Array, emit: (a: A) => void): Err | undefined
  end(emit: (a: A) => void): Err | undefined
}

/** The values a fresh parser finds in a byte stream, failing with the first error it answers. */
export const parseByteStream = <A, Err, E, R>(make: () => ByteParser<A, Err>, bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<A, E | Err, R> =>
  Stream.suspend(() => {
    const parser = make()
    // mapAccumArrayEffect, not mapArrayEffect: a chunk of bytes may complete no row or product at all.
    const body = Stream.mapAccumArrayEffect(bytes, () => parser, (state, chunks) => {
      const out: Array<A> = []
      const emit = (a: A): void => {
        out.push(a)
      }
      for (const chunk of chunks) {
        const error = state.push(chunk, emit)
        if (error !== undefined) return Effect.fail(error)
      }
      return Effect.succeed([state, out] as const)
    })
    const ending = Stream.suspend(() => {
      const out: Array<A> = []
      const error = parser.end((a) => out.push(a))
      return error === undefined ? Stream.fromIterable(out) : Stream.fail(error)
    })
    return Stream.concat(body, ending)
  })
