export * from "./StreamQueue.ts"
export * as MemoryStreamQueue from "./MemoryStreamQueue.ts"
export * as RedisStreamQueue from "./RedisStreamQueue.ts"
export * as PostgresStreamQueue from "./PostgresStreamQueue.ts"
