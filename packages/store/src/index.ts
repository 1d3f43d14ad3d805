export * as Database from "./Database.ts"
export type { DatabaseOptions } from "./Database.ts"
export type { ErrorEntry } from "./LoadErrors.ts"
export { type CountsIncrement, type ErrorsQuery, LoadRepository, type NewLoad } from "./LoadRepository.ts"
export { LoadOwnership, type UnfinishedLoad } from "./LoadOwnership.ts"
export { CapacityRetention } from "./CapacityRetention.ts"
export { LoadRetention } from "./LoadRetention.ts"
export { migrate, MIGRATIONS_TABLE } from "./Migrations.ts"
export { Outbox, type OutboxEvent } from "./Outbox.ts"
export type { ProductChildren, RowCounts } from "./ProductChildren.ts"
export { type PersistOutcome, ProductRepository } from "./ProductRepository.ts"
export { latestPerCode, upsertProducts } from "./ProductUpsert.ts"
export { type BatchHeader, columnValues, type DecodedBatch, decodeEncodedBatch, encodeBatch, entryOfColumns, isEncodedBatch, readEncodedHeader, sentSkus, UNREADABLE_SKU } from "./EncodedBatch.ts"
export { type EncodedRows, encodeRows, layoutRows, rowCode, rowsTransfers, type RowRun } from "./EncodedRows.ts"
export { BinaryArrayWriter } from "./BinaryArrayWriter.ts"
export { InvalidCursor, StoreError } from "./StoreError.ts"
export {
  CapacityExhausted,
  CapacityRepository,
  type ConsumeOutcome,
  type GroupedOrder,
  type GroupedOutcome,
  type LimitedUse,
  OrderIdTaken,
  type StoredNetwork
} from "./CapacityRepository.ts"
export { columnsOf, type LedgerRow, resourceOf, type UsageRow, type UsageState } from "./CapacityRows.ts"
export { StockRepository, type StockSets, type StockWritten } from "./StockRepository.ts"
