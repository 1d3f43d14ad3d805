import { Clock, Duration, Effect, Stream } from "effect"

/**
 * When the reader of a multipart body is waiting on the parser. Once the raw body has ended, the
 * parser holds every byte it will ever get, so a pull that stays unanswered is a body that stops
 * before its closing boundary (multipasta neither ends nor fails on one). A reader that is slow
 * itself (a handler validating or publishing its last batches) is not waiting on the parser, and
 * however long it takes, it is not taken for an unterminated body.
 */
export class ParserWaits {
  private pending = 0
  private since = 0

  /** The stream, with the time its reader spends waiting for each of its chunks recorded. */
  readonly track = <A, E, R>(stream: Stream.Stream<A, E, R>): Stream.Stream<A, E, R> =>
    Stream.transformPull(stream, (pull) =>
      Effect.succeed(
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          if (this.pending++ === 0) this.since = now
          return pull
        }).pipe(Effect.ensuring(Effect.sync(() => void this.pending--)))
      ))

  /**
   * Completes once a pull has waited `limit` since both it began and `bodyEndedAt`: the parser
   * had nothing to give although nothing more would come.
   */
  readonly stuckFor = (limit: Duration.Duration, bodyEndedAt: number): Effect.Effect<void> => {
    const limitMillis = Duration.toMillis(limit)
    const check: Effect.Effect<void> = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const waited = this.pending === 0 ? 0 : now - Math.max(this.since, bodyEndedAt)
      return waited >= limitMillis ? Effect.void : Effect.andThen(Effect.sleep(limitMillis - waited), check)
    })
    return check
  }
}
