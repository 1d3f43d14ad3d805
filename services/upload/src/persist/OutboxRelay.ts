import { StreamQueue } from "@retail/queue"
import { Outbox } from "@retail/store"
import { Effect, Layer } from "effect"
import { repeatInBackground } from "../BackgroundLoop.ts"
import { UploadConfig } from "../UploadConfig.ts"

const PAGE = 100

/**
 * Publishes load status events written to the outbox (in the same transactions as the status
 * changes) to the events stream, so no change is lost and none is announced that did not happen.
 */
export const OutboxRelay = Layer.effectDiscard(
  Effect.gen(function*() {
    const queue = yield* StreamQueue
    const outbox = yield* Outbox
    const { eventsStream } = yield* UploadConfig

    const relayPage = outbox.publishPending(PAGE, (events) =>
      queue.publish(eventsStream, events.map((event) => event.payload), { maxLen: 1_000_000 }))

    // A full page means more are waiting: go on at once; otherwise look again shortly.
    const relay = relayPage.pipe(
      Effect.flatMap((published) => (published === PAGE ? Effect.void : Effect.sleep("200 millis"))),
      Effect.forever
    )

    // Untraced: a loop polling every 200 ms would be most of the traces sampled, and none of a load's.
    yield* repeatInBackground(Effect.withTracerEnabled(relay, false), "1 second", "load events relay failed; retrying")
  })
)
