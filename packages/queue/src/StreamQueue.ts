import { Context, Schema } from "effect"
import type { Effect } from "effect"

/** An entry handed to a consumer of a group. `deliveries` counts this delivery too. */
export interface Delivery {
  readonly id: string
  readonly payload: string
  readonly deliveries: number
  /** The W3C trace context the entry was published in (see PublishOptions.traceparent); absent when none was. */
  readonly traceparent?: string
}

export interface StreamEntry {
  readonly id: string
  readonly payload: string
}

export interface DeadLetter {
  readonly id: string
  readonly payload: string
  readonly reason: string
  readonly deliveries: number
  readonly sourceId: string
}

export class QueueError extends Schema.TaggedError<QueueError>()("QueueError", {
  operation: Schema.String,
  message: Schema.String
}) {}

/** An entry's payload as given to `publish`: text, or its UTF-8 bytes (read back as text). */
export type Payload = string | Uint8Array

/**
 * Members of a set kept beside a stream and changed in the same atomic step as its entries: a
 * producer marks what it appended (for instance the batches of one load), a consumer unmarks what
 * it finished, and anyone can tell later what is still on the queue, or was lost with it.
 */
export interface Tracking {
  readonly set: string
  readonly members: ReadonlyArray<string>
}

export interface PublishOptions {
  /** Trims the stream to at most this many entries (exactly) after appending. */
  readonly maxLen?: number
  /** Adds these members to their set atomically with the append. */
  readonly track?: Tracking
  /**
   * A W3C `traceparent` stored beside each payload (a field of the entry), so that its consumer can
   * continue the publisher's trace; absent, the entry carries none (see QueueTracing).
   */
  readonly traceparent?: string
}

export interface AckOptions {
  /**
   * Also deletes the entries from the stream, in the same atomic step: for a work queue whose one
   * group is its only reader, so that the stream holds the backlog, not the history.
   */
  readonly deleteEntries?: boolean
  /** Removes these members from their set atomically with the acknowledgement. */
  readonly untrack?: Tracking
}

export interface DeadLetterOptions extends AckOptions {
  /**
   * The dead-letter stream keeps at most this many entries, the newest: older ones are trimmed in
   * the same atomic step. Unset: it keeps every entry.
   */
  readonly keepDead?: number
}

export interface ReadOptions {
  readonly count: number
  /** Waits up to this long when nothing is available; `<= 0` returns at once (never "forever"). */
  readonly blockMs: number
}

export interface ClaimOptions {
  readonly minIdleMs: number
  readonly count: number
}

/** A consumer group's backlog, for the metrics read at scrape. */
export interface GroupStats {
  /** Entries delivered to the group and not acknowledged. */
  readonly pending: number
  /** Entries never delivered to the group; null when the server cannot tell (Redis before 7). */
  readonly lag: number | null
  /** Idle time of the oldest pending entry since its last delivery (Redis: the one with the lowest id); 0 when none. */
  readonly oldestPendingMs: number
}

/** What survives a restart of the queue's server (or of this process, for the in-process queue). */
export interface QueueDurability {
  /** True when acknowledged appends survive a restart; false when they do not; null when it could not be told. */
  readonly durable: boolean | null
  /** One sentence for the start-up log and /ready. */
  readonly description: string
}

export interface StreamQueueShape {
  /** What keeps the entries: this process, a Redis server, or tables of a PostgreSQL database. */
  readonly kind: "memory" | "redis" | "postgres"
  /**
   * True for a queue whose entries live in this process only: other processes cannot see them, and
   * they are gone when it stops (shutdown drains it instead).
   */
  readonly processLocal: boolean
  /** Appends all payloads atomically, in order; returns their ids in the same order. */
  readonly publish: (
    stream: string,
    payloads: ReadonlyArray<Payload>,
    options?: PublishOptions
  ) => Effect.Effect<ReadonlyArray<string>, QueueError>
  /**
   * Creates the group reading from the start of the stream (creating the stream too); idempotent.
   * True when it created the group, false when it was there.
   */
  readonly ensureGroup: (stream: string, group: string) => Effect.Effect<boolean, QueueError>
  /** Entries never delivered to the group before; `[]` after `blockMs` without any. */
  readonly read: (
    stream: string,
    group: string,
    consumer: string,
    options: ReadOptions
  ) => Effect.Effect<ReadonlyArray<Delivery>, QueueError>
  readonly ack: (
    stream: string,
    group: string,
    ids: ReadonlyArray<string>,
    options?: AckOptions
  ) => Effect.Effect<void, QueueError>
  /** Takes over entries pending longer than `minIdleMs` from any consumer; counts this delivery. */
  readonly claimStale: (
    stream: string,
    group: string,
    consumer: string,
    options: ClaimOptions
  ) => Effect.Effect<ReadonlyArray<Delivery>, QueueError>
  /**
   * Takes back one delivery of a pending entry: its consumer could not work on it through no fault
   * of the entry's (the database was down), so that delivery must not count towards dead-lettering.
   * The entry stays pending, owned by `consumer` and idle from now; a no-op for one no longer pending.
   */
  readonly uncountDelivery: (
    stream: string,
    group: string,
    consumer: string,
    delivery: Delivery
  ) => Effect.Effect<void, QueueError>
  /** Appends the entry to `${stream}:dead` and acks it in the group (see AckOptions), atomically. */
  readonly deadLetter: (
    stream: string,
    group: string,
    delivery: Delivery,
    reason: string,
    options?: DeadLetterOptions
  ) => Effect.Effect<void, QueueError>
  /** Entries with an id greater than `afterId` ("0" = from the start, "$" = only new ones). */
  readonly readAfter: (
    stream: string,
    afterId: string,
    options: ReadOptions
  ) => Effect.Effect<ReadonlyArray<StreamEntry>, QueueError>
  /** The id of the newest entry of a stream, "0-0" when it is empty or missing: a position for `readAfter`. */
  readonly lastId: (stream: string) => Effect.Effect<string, QueueError>
  /** The oldest dead letters of a stream. */
  readonly readDead: (stream: string, options: { readonly count: number }) => Effect.Effect<ReadonlyArray<DeadLetter>, QueueError>
  /** The members of a tracking set (see Tracking); `[]` for a missing set. */
  readonly tracked: (set: string) => Effect.Effect<ReadonlyArray<string>, QueueError>
  /** Entries in the stream (pending ones included); 0 for a missing stream. */
  readonly length: (stream: string) => Effect.Effect<number, QueueError>
  /** The backlog of a group (zeros for a missing stream or group). */
  readonly groupStats: (stream: string, group: string) => Effect.Effect<GroupStats, QueueError>
  /** Whether acknowledged appends survive a restart, as far as the server lets it be checked. */
  readonly durability: Effect.Effect<QueueDurability, QueueError>
  readonly ping: Effect.Effect<void, QueueError>
}

export class StreamQueue extends Context.Service<StreamQueue, StreamQueueShape>()("@retail/queue/StreamQueue") {}

export const deadStream = (stream: string): string => `${stream}:dead`
