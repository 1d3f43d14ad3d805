import { type CsvFileHeaders, joinPartition } from "@retail/ingest"
import { Stream } from "effect"
import type { CsvPartitions } from "./CsvPartitions.ts"

/** Items handed on at a time: a few batches, so that validated JSON does not pile up for a whole partition. */
const ITEMS_PER_CHUNK = 500

/** Every item of the load, partition after partition; memory: one partition's rows at a time. */
export const joinedItems = (partitions: Pick<CsvPartitions, "count" | "read">, headers: CsvFileHeaders) =>
  Stream.range(0, partitions.count - 1).pipe(
    Stream.mapEffect((partition) => partitions.read(partition)),
    Stream.flatMap((bytes) => Stream.fromIteratorSucceed(joinPartition(bytes, headers), ITEMS_PER_CHUNK))
  )
