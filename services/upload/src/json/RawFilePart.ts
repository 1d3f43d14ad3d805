import { StorageFailed } from "@retail/api"
import { Effect, Stream } from "effect"
import { createReadStream } from "node:fs"
import { open } from "node:fs/promises"
import { join } from "node:path"
import type { FileContent } from "../multipart/MultipartUpload.ts"

const failed = (operation: string) => (cause: unknown) =>
  new StorageFailed({
    message: `The upload could not be ${operation} in temporary storage (${cause instanceof Error ? cause.message : String(cause)}); nothing was published. Retry later.`
  })

/**
 * A file part kept as it came, in `folder` (a load's own spool folder, removed with the load), for
 * when what it is checked against arrives after it: the company of an internal load sent after
 * its file. `write` consumes the part (its limits and failures are the upload's); `content` reads
 * it back as the part's stream would have given it.
 */
export const rawFilePart = (folder: string, name: string) => {
  const path = join(folder, `${name}.part`)
  return {
    write: (content: FileContent) =>
      Effect.acquireUseRelease(
        Effect.tryPromise({ try: () => open(path, "w"), catch: failed("kept") }),
        (handle) =>
          Stream.runForEachArray(content, (chunks) =>
            Effect.tryPromise({
              try: async () => {
                const total = chunks.reduce((sum, chunk) => sum + chunk.length, 0)
                const { bytesWritten } = await handle.writev(chunks)
                if (bytesWritten !== total) throw new Error(`only ${bytesWritten} of ${total} bytes were written`)
              },
              catch: failed("kept")
            })),
        (handle) => Effect.promise(() => handle.close().catch(() => undefined))
      ),
    content: (): Stream.Stream<Uint8Array, StorageFailed> =>
      Stream.fromAsyncIterable(createReadStream(path, { highWaterMark: 256 * 1024 }) as AsyncIterable<Uint8Array>, failed("read back"))
  } as const
}
