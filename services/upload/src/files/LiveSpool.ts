import { Data, Effect, Mailbox } from "effect"
import type { SpoolRecord, SpoolSink, SpoolSource } from "./LoadSpool.ts"

/** Records written but not yet read: about one group of the publisher's, so that it always has the next one at hand. */
const WAITING_RECORDS = 8

/** What stopped the writer of a live spool; its reader fails with it after the records written before. */
export class SourceFailed extends Data.TaggedError("SourceFailed")<{ readonly message: string }> {}

/**
 * A spool that is not a file: the records go straight to the publisher, which reads them while they
 * are written. For a load that can no longer be refused by the time its records are written (a CSV
 * load once its four files were read): publishing then goes on beside the join instead of after it.
 *
 * At most `WAITING_RECORDS` records wait in memory; a writer that gets ahead waits for the reader.
 * A batch is copied out of the writer's buffer (which it reuses once `writeBatch` completes) into
 * one from the reader's `allocate`, which the publisher takes back from its pool of buffers.
 */
export const makeLiveSpool = (folder: string) =>
  Effect.map(Mailbox.make<SpoolRecord, SourceFailed>(WAITING_RECORDS), (mailbox) => {
    let allocate: (length: number) => Uint8Array = Buffer.allocUnsafe
    const sink: SpoolSink = {
      folder,
      writeBatch: (count, productsJson) =>
        Effect.suspend(() => {
          const copy = allocate(productsJson.length)
          copy.set(productsJson)
          return mailbox.offer({ _tag: "Batch", count, productsJson: copy })
        }).pipe(Effect.asVoid),
      writeErrors: (json) => Effect.asVoid(mailbox.offer({ _tag: "Errors", json }))
    }
    const source: SpoolSource<SourceFailed> = {
      records: (allocateWith = Buffer.allocUnsafe) => {
        allocate = allocateWith
        return Mailbox.toStream(mailbox)
      }
    }
    return {
      ...sink,
      ...source,
      /** The last record was written: the reader ends once it has read them all. */
      end: Effect.asVoid(mailbox.end),
      /** The writer failed: the reader fails with `message` once it has read the records written before. */
      fail: (message: string) => Effect.asVoid(mailbox.fail(new SourceFailed({ message })))
    } as const
  })

export type LiveSpool = Effect.Effect.Success<ReturnType<typeof makeLiveSpool>>
