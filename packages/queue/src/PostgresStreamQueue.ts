/**
 * StreamQueue on tables of a PostgreSQL database (see internal/pgSchema.ts), with the semantics of
 * Redis Streams. Every operation that changes more than one row is atomic: one statement, or one
 * transaction; run inside a caller's transaction, it joins it (the outbox relay publishes and marks
 * published in one).
 *
 * Appends to a stream serialise on its row, which hands out the ids, so entries become visible in
 * id order and a group's "last delivered" pointer never skips one. Reads of a group serialise on
 * the group's row, so each new entry goes to exactly one consumer, whichever process it is in.
 * Blocking reads poll, and wake at once on an append made by this process.
 */
import { Array as Arr, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { bounded, DeadRow, decodeRows, DeliveryRow, EntryRow, exactSeq, idOf, parseId, SeqRow } from "./internal/pgQuery.ts"
import { ensureSchema } from "./internal/pgSchema.ts"
import * as validate from "./internal/validate.ts"
import * as Wakeups from "./internal/Wakeups.ts"
import type { DeadLetter, Delivery, Payload, StreamEntry, StreamQueueShape, Tracking } from "./StreamQueue.ts"
import { deadStream, QueueError, StreamQueue } from "./StreamQueue.ts"

export interface Options {
  /** Where the database is, for the durability sentence (for instance "embedded PostgreSQL server in ./data"). */
  readonly location: string
  /** Bound on each statement or transaction, on top of `blockMs` for blocking reads. Default 5000. */
  readonly commandTimeoutMs?: number
  /** How often a blocking read looks for entries appended by other processes. Default 200. */
  readonly pollIntervalMs?: number
}

const Durability = Schema.Struct({ database: Schema.String, fsync: Schema.String, synchronous_commit: Schema.String })
const Exists = Schema.Struct({ fresh: Schema.Boolean })
const Count = Schema.Struct({ n: Schema.Number })
const Member = Schema.Struct({ member: Schema.String })
const Stats = Schema.Struct({ pending: Schema.Number, lag: Schema.Number, oldestPendingMs: Schema.Number })

const noGroup = (operation: string, stream: string, group: string) =>
  new QueueError({ operation, message: `NOGROUP No such key '${stream}' or consumer group '${group}'` })

const toDelivery = (row: typeof DeliveryRow.Type): Delivery =>
  row.traceparent === null
    ? { id: idOf(row.seq), payload: row.payload, deliveries: row.deliveries }
    : { id: idOf(row.seq), payload: row.payload, deliveries: row.deliveries, traceparent: row.traceparent }

export const make = (options: Options): Effect.Effect<StreamQueueShape, QueueError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const timeoutMs = options.commandTimeoutMs ?? 5000
    const wakeups = yield* Wakeups.make(options.pollIntervalMs ?? 200)
    const run = (operation: string) => bounded(operation, timeoutMs)
    yield* ensureSchema(sql).pipe(run("create queue tables"))

    const payloadValue = (payload: Payload) => typeof payload === "string" ? sql`${payload}` : sql`convert_from(${payload}, 'UTF8')`

    const groupExists = (operation: string, stream: string, group: string) =>
      sql`SELECT 1 FROM retail_queue_groups WHERE stream = ${stream} AND group_name = ${group}`.pipe(
        Effect.flatMap((rows) => rows.length === 0 ? Effect.fail(noGroup(operation, stream, group)) : Effect.void)
      )

    /** Takes `count` ids from the stream's counter (creating the stream); holds its row until commit. */
    const reserveIds = (operation: string, stream: string, count: number) =>
      sql`
        INSERT INTO retail_queue_streams (stream, last_seq) VALUES (${stream}, ${count})
        ON CONFLICT (stream) DO UPDATE SET last_seq = retail_queue_streams.last_seq + EXCLUDED.last_seq
        RETURNING last_seq::text AS seq
      `.pipe(
        Effect.flatMap(decodeRows(operation, SeqRow)),
        Effect.flatMap(([row]) =>
          row === undefined ? Effect.fail(new QueueError({ operation, message: "no id reserved" })) : Effect.succeed(Number(row.seq) - count + 1)
        )
      )

    const track = (tracking: Tracking | undefined) => {
      if (tracking === undefined || !Arr.isReadonlyArrayNonEmpty(tracking.members)) return Effect.void
      const rows = Arr.map(tracking.members, (member) => ({ set_name: tracking.set, member }))
      return sql`INSERT INTO retail_queue_tracked ${sql.insert(rows)} ON CONFLICT DO NOTHING`.pipe(Effect.asVoid)
    }

    const untrack = (tracking: Tracking | undefined) =>
      tracking === undefined || tracking.members.length === 0
        ? Effect.void
        : sql`DELETE FROM retail_queue_tracked WHERE set_name = ${tracking.set} AND member IN ${sql.in(tracking.members)}`.pipe(Effect.asVoid)

    // Exactly maxLen: the cheap look first, as a stream rarely needs trimming (the counter bounds how many can be left).
    const trim = (stream: string, lastSeq: number, maxLen: number) =>
      Effect.gen(function*() {
        const over = yield* sql`SELECT 1 FROM retail_queue_entries WHERE stream = ${stream} AND seq <= ${lastSeq - maxLen} LIMIT 1`
        if (over.length === 0) return
        yield* maxLen === 0
          ? sql`DELETE FROM retail_queue_entries WHERE stream = ${stream}`
          : sql`
            DELETE FROM retail_queue_entries WHERE stream = ${stream} AND seq < (
              SELECT seq FROM retail_queue_entries WHERE stream = ${stream} ORDER BY seq DESC OFFSET ${maxLen - 1} LIMIT 1
            )`
      })

    const publish: StreamQueueShape["publish"] = (stream, payloads, publishOptions) =>
      Effect.gen(function*() {
        const maxLen = publishOptions?.maxLen
        if (maxLen !== undefined) yield* validate.nonNegativeInt("publish", "maxLen", maxLen)
        if (payloads.length === 0) return []
        const seqs = yield* sql.withTransaction(
          Effect.gen(function*() {
            const first = yield* reserveIds("publish", stream, payloads.length)
            // Bytes go to the server as they are (a binary bytea parameter the server reads as UTF-8
            // text), never turned into a string here.
            const traceparent = publishOptions?.traceparent ?? null
            const rows = payloads.map((payload: Payload, i) => sql`(${stream}, ${first + i}, ${payloadValue(payload)}, ${traceparent})`)
            yield* sql`INSERT INTO retail_queue_entries (stream, seq, payload, traceparent) VALUES ${sql.csv(rows)}`
            yield* track(publishOptions?.track)
            const last = first + payloads.length - 1
            if (maxLen !== undefined) yield* trim(stream, last, maxLen)
            return payloads.map((_, i) => String(first + i))
          })
        ).pipe(run("publish"))
        yield* wakeups.notify(stream)
        return seqs.map(idOf)
      })

    const ensureGroup: StreamQueueShape["ensureGroup"] = (stream, group) =>
      sql.withTransaction(
        Effect.gen(function*() {
          yield* sql`INSERT INTO retail_queue_streams (stream) VALUES (${stream}) ON CONFLICT DO NOTHING`
          const created = yield* sql`
            INSERT INTO retail_queue_groups (stream, group_name) VALUES (${stream}, ${group})
            ON CONFLICT DO NOTHING RETURNING 1`
          return created.length > 0
        })
      ).pipe(run("ensureGroup"))

    // Without a lock: whether there is anything to take, so that an idle poll is one cheap statement.
    const hasFresh = (stream: string, group: string) =>
      sql`
        SELECT EXISTS (
          SELECT 1 FROM retail_queue_entries e WHERE e.stream = g.stream AND e.seq > g.last_delivered
        ) AS fresh
        FROM retail_queue_groups g WHERE g.stream = ${stream} AND g.group_name = ${group}
      `.pipe(
        Effect.flatMap(decodeRows("read", Exists)),
        Effect.flatMap(([row]) => row === undefined ? Effect.fail(noGroup("read", stream, group)) : Effect.succeed(row.fresh))
      )

    /**
     * One statement. Locked, the group's row is read at its latest version, even after waiting for
     * another reader to commit; entries after it are then nobody else's, though this statement sees
     * only those committed when it began.
     */
    const takeFresh = (stream: string, group: string, consumer: string, count: number) =>
      sql`
        WITH position AS (
          SELECT last_delivered FROM retail_queue_groups WHERE stream = ${stream} AND group_name = ${group} FOR UPDATE
        ), fresh AS (
          SELECT e.seq, e.payload, e.traceparent FROM retail_queue_entries e, position
          WHERE e.stream = ${stream} AND e.seq > position.last_delivered ORDER BY e.seq LIMIT ${count}
        ), delivered AS (
          INSERT INTO retail_queue_pending (stream, group_name, seq, consumer, deliveries, delivered_at)
          SELECT ${stream}, ${group}, seq, ${consumer}, 1, clock_timestamp() FROM fresh
        ), moved AS (
          UPDATE retail_queue_groups SET last_delivered = (SELECT max(seq) FROM fresh)
          WHERE stream = ${stream} AND group_name = ${group} AND EXISTS (SELECT 1 FROM fresh)
        )
        SELECT seq::text AS seq, payload, traceparent, 1 AS deliveries FROM fresh ORDER BY fresh.seq
      `.pipe(Effect.flatMap(decodeRows("read", DeliveryRow)))

    const readNew = (stream: string, group: string, consumer: string, count: number) =>
      hasFresh(stream, group).pipe(
        Effect.flatMap((fresh) => fresh ? takeFresh(stream, group, consumer, count) : Effect.succeed([])),
        Effect.map((rows) => rows.map(toDelivery)),
        run("read")
      )

    const read: StreamQueueShape["read"] = (stream, group, consumer, readOptions) =>
      Effect.andThen(
        validate.readOptions("read", readOptions),
        wakeups.awaitNonEmpty(stream, readOptions.blockMs, readNew(stream, group, consumer, readOptions.count))
      )

    const parseIds = (operation: string, ids: ReadonlyArray<string>) =>
      Effect.forEach(ids, (id) => Effect.map(parseId(operation, id), exactSeq))

    // One statement, so one round trip, atomic by itself.
    const ack: StreamQueueShape["ack"] = (stream, group, ids, ackOptions) =>
      Effect.gen(function*() {
        const seqs = `{${(yield* parseIds("ack", ids)).join(",")}}`
        const members = ackOptions?.untrack?.members ?? []
        if (ids.length === 0 && members.length === 0) return
        yield* sql`
          WITH acked AS (
            DELETE FROM retail_queue_pending WHERE stream = ${stream} AND group_name = ${group} AND seq = ANY(${seqs}::bigint[])
          ), deleted AS (
            DELETE FROM retail_queue_entries
            WHERE ${ackOptions?.deleteEntries === true} AND stream = ${stream} AND seq = ANY(${seqs}::bigint[])
          )
          DELETE FROM retail_queue_tracked
          WHERE set_name = ${ackOptions?.untrack?.set ?? ""} AND ${members.length > 0 ? sql`member IN ${sql.in(members)}` : sql`FALSE`}
        `.pipe(run("ack"))
      })

    const claimStale: StreamQueueShape["claimStale"] = (stream, group, consumer, claimOptions) =>
      Effect.gen(function*() {
        yield* validate.nonNegativeInt("claimStale", "minIdleMs", claimOptions.minIdleMs)
        yield* validate.positiveInt("claimStale", "count", claimOptions.count)
        const idle = sql`clock_timestamp() - make_interval(secs => ${claimOptions.minIdleMs / 1000})`
        const rows = yield* sql.withTransaction(
          Effect.gen(function*() {
            yield* groupExists("claimStale", stream, group)
            // Deleted (or trimmed away) while pending: dropped, as XAUTOCLAIM drops them.
            yield* sql`
              DELETE FROM retail_queue_pending p
              WHERE p.stream = ${stream} AND p.group_name = ${group} AND p.delivered_at <= ${idle}
                AND NOT EXISTS (SELECT 1 FROM retail_queue_entries e WHERE e.stream = p.stream AND e.seq = p.seq)`
            return yield* sql`
              WITH stale AS (
                SELECT seq FROM retail_queue_pending
                WHERE stream = ${stream} AND group_name = ${group} AND delivered_at <= ${idle}
                ORDER BY seq LIMIT ${claimOptions.count} FOR UPDATE SKIP LOCKED
              ), claimed AS (
                UPDATE retail_queue_pending p
                SET consumer = ${consumer}, deliveries = p.deliveries + 1, delivered_at = clock_timestamp()
                FROM stale WHERE p.stream = ${stream} AND p.group_name = ${group} AND p.seq = stale.seq
                RETURNING p.seq, p.deliveries
              )
              SELECT c.seq::text AS seq, e.payload, e.traceparent, c.deliveries
              FROM claimed c JOIN retail_queue_entries e ON e.stream = ${stream} AND e.seq = c.seq
              ORDER BY c.seq
            `.pipe(Effect.flatMap(decodeRows("claimStale", DeliveryRow)))
          })
        ).pipe(run("claimStale"))
        return rows.map(toDelivery)
      })

    const uncountDelivery: StreamQueueShape["uncountDelivery"] = (stream, group, consumer, delivery) =>
      Effect.gen(function*() {
        const seq = exactSeq(yield* parseId("uncountDelivery", delivery.id))
        yield* sql.withTransaction(
          Effect.andThen(
            groupExists("uncountDelivery", stream, group),
            sql`
              UPDATE retail_queue_pending
              SET consumer = ${consumer}, deliveries = ${Math.max(0, delivery.deliveries - 1)}, delivered_at = clock_timestamp()
              WHERE stream = ${stream} AND group_name = ${group} AND seq = ${seq}`
          )
        ).pipe(run("uncountDelivery"))
      })

    const deadLetter: StreamQueueShape["deadLetter"] = (stream, group, delivery, reason, ackOptions) =>
      Effect.gen(function*() {
        const seq = exactSeq(yield* parseId("deadLetter", delivery.id))
        yield* validate.optionalNonNegativeInt("deadLetter", "keepDead", ackOptions?.keepDead)
        const dead = deadStream(stream)
        yield* sql.withTransaction(
          Effect.gen(function*() {
            const deadSeq = yield* reserveIds("deadLetter", dead, 1)
            yield* sql`INSERT INTO retail_queue_entries ${
              sql.insert({
                stream: dead,
                seq: deadSeq,
                payload: delivery.payload,
                reason,
                deliveries: delivery.deliveries,
                source_id: delivery.id
              })
            }`
            // A dead stream's ids are reserved one at a time, so the newest keepDead are the seqs above this.
            if (ackOptions?.keepDead !== undefined) {
              yield* sql`DELETE FROM retail_queue_entries WHERE stream = ${dead} AND seq <= ${deadSeq - ackOptions.keepDead}`
            }
            yield* sql`DELETE FROM retail_queue_pending WHERE stream = ${stream} AND group_name = ${group} AND seq = ${seq}`
            if (ackOptions?.deleteEntries === true) yield* sql`DELETE FROM retail_queue_entries WHERE stream = ${stream} AND seq = ${seq}`
            yield* untrack(ackOptions?.untrack)
          })
        ).pipe(run("deadLetter"))
        yield* wakeups.notify(dead)
      })

    const lastSeq = (operation: string, stream: string) =>
      sql`SELECT last_seq::text AS seq FROM retail_queue_streams WHERE stream = ${stream}`.pipe(
        Effect.flatMap(decodeRows(operation, SeqRow)),
        Effect.map(([row]) => row?.seq ?? "0"),
        run(operation)
      )

    const entriesAfter = (stream: string, after: number | string, count: number) =>
      sql`
        SELECT seq::text AS seq, payload FROM retail_queue_entries e
        WHERE stream = ${stream} AND seq > ${after} ORDER BY e.seq LIMIT ${count}
      `.pipe(
        Effect.flatMap(decodeRows("readAfter", EntryRow)),
        Effect.map((rows) => rows.map((row): StreamEntry => ({ id: idOf(row.seq), payload: row.payload }))),
        run("readAfter")
      )

    const readAfter: StreamQueueShape["readAfter"] = (stream, afterId, readOptions) =>
      Effect.gen(function*() {
        yield* validate.readOptions("readAfter", readOptions)
        const after = afterId === "$" ? yield* lastSeq("readAfter", stream) : (yield* parseId("readAfter", afterId)).ms
        return yield* wakeups.awaitNonEmpty(stream, readOptions.blockMs, entriesAfter(stream, after, readOptions.count))
      })

    const readDead: StreamQueueShape["readDead"] = (stream, readOptions) =>
      Effect.andThen(
        validate.positiveInt("readDead", "count", readOptions.count),
        sql`
          SELECT seq::text AS seq, payload, reason, deliveries, source_id FROM retail_queue_entries e
          WHERE stream = ${deadStream(stream)} ORDER BY e.seq LIMIT ${readOptions.count}
        `.pipe(
          Effect.flatMap(decodeRows("readDead", DeadRow)),
          Effect.map((rows) =>
            rows.map((row): DeadLetter => ({
              id: idOf(row.seq),
              payload: row.payload,
              reason: row.reason,
              deliveries: row.deliveries,
              sourceId: row.source_id
            }))
          ),
          run("readDead")
        )
      )

    const durability: StreamQueueShape["durability"] = sql`
      SELECT current_database() AS database, current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS synchronous_commit
    `.pipe(
      Effect.flatMap(decodeRows("durability", Durability)),
      Effect.map(([row]) => {
        const where = `PostgreSQL queue in database "${row?.database ?? "?"}" of the ${options.location}`
        if (row?.fsync !== "on") {
          return { durable: false, description: `${where} runs with fsync off: a machine crash can lose or corrupt accepted products` }
        }
        return {
          durable: true,
          description: row.synchronous_commit === "off"
            ? `${where}, synchronous_commit off: a crash of the server loses nothing, a machine crash up to a fraction of a second of writes`
            : `${where}: accepted products are committed to disk before the request is answered; a crash of this process or of the database loses none`
        }
      }),
      run("durability")
    )

    return StreamQueue.of({
      kind: "postgres",
      processLocal: false,
      publish,
      ensureGroup,
      read,
      ack,
      claimStale,
      uncountDelivery,
      deadLetter,
      readAfter,
      lastId: (stream) => Effect.map(lastSeq("lastId", stream), idOf),
      readDead,
      tracked: (set) =>
        sql`SELECT member FROM retail_queue_tracked WHERE set_name = ${set} ORDER BY member`.pipe(
          Effect.flatMap(decodeRows("tracked", Member)),
          Effect.map((rows) => rows.map((row) => row.member)),
          run("tracked")
        ),
      length: (stream) =>
        sql`SELECT count(*)::int AS n FROM retail_queue_entries WHERE stream = ${stream}`.pipe(
          Effect.flatMap(decodeRows("length", Count)),
          Effect.map(([row]) => row?.n ?? 0),
          run("length")
        ),
      groupStats: (stream, group) =>
        sql`
          SELECT
            (SELECT count(*)::int FROM retail_queue_pending WHERE stream = ${stream} AND group_name = ${group}) AS pending,
            (SELECT count(*)::int FROM retail_queue_entries e JOIN retail_queue_groups g ON g.stream = e.stream
              WHERE e.stream = ${stream} AND g.group_name = ${group} AND e.seq > g.last_delivered) AS lag,
            COALESCE((SELECT (extract(epoch FROM now() - min(delivered_at)) * 1000)::float8 FROM retail_queue_pending
              WHERE stream = ${stream} AND group_name = ${group}), 0) AS "oldestPendingMs"
        `.pipe(
          Effect.flatMap(decodeRows("groupStats", Stats)),
          Effect.map(([row]) => row ?? { pending: 0, lag: 0, oldestPendingMs: 0 }),
          run("groupStats")
        ),
      durability,
      ping: sql`SELECT 1`.pipe(Effect.asVoid, run("ping"))
    })
  })

/** Creates its tables if missing; fails when the database does not answer. */
export const layer = (options: Options): Layer.Layer<StreamQueue, QueueError, SqlClient.SqlClient> =>
  Layer.effect(StreamQueue, make(options))
