import type { Tracking } from "@retail/queue"

/**
 * The batch numbers of one load still on the queue, kept in a set beside the batches stream:
 * added with the entries that carry them, removed when a worker acknowledges them. With the batches
 * recorded in the database, it tells a load that is still on its way from one the queue lost.
 */
export const loadBatchesSet = (stream: string, processCode: string): string => `${stream}:load:${processCode}`

export const trackBatches = (stream: string, processCode: string, batchNos: ReadonlyArray<number>): Tracking => ({
  set: loadBatchesSet(stream, processCode),
  members: batchNos.map(String)
})
