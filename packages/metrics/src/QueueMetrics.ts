import { counter, gauge, histogram, LATENCY_SECONDS } from "./Families.ts"

export const streamLength = gauge("queue_stream_length", "Entries in a stream (pending ones included), read at scrape", ["stream"])
export const pendingEntries = gauge("queue_pending_entries", "Entries delivered to a consumer group and not acknowledged yet, read at scrape", ["stream", "group"])
export const consumerLag = gauge("queue_consumer_lag", "Entries of a stream never delivered to the group yet, read at scrape", ["stream", "group"])
export const oldestPendingSeconds = gauge(
  "queue_oldest_pending_seconds",
  "Idle time of the oldest pending entry of a group (since its last delivery); 0 when none is pending, read at scrape",
  ["stream", "group"]
)
export const deadLetterLength = gauge("queue_dead_letter_length", "Entries in a stream's dead-letter stream, read at scrape", ["stream"])

export const deliveries = counter("queue_deliveries_total", "Entries handed to consumers (first deliveries and claims of stale ones)", ["stream", "group"])
export const deadLetters = counter("queue_dead_letters_total", "Entries moved to the dead-letter stream", ["stream"])
export const publishSeconds = histogram("queue_publish_duration_seconds", "Time to publish one call's entries (all appended atomically)", LATENCY_SECONDS, ["stream"])
export const publishedEntries = counter("queue_published_entries_total", "Entries appended to a stream", ["stream"])
export const publishFailures = counter("queue_publish_failures_total", "Publish calls that failed (nothing appended)", ["stream"])
