import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Tables of the delivery capacity store.
 * - capacity_network: the one current network document (row id 1) and its version.
 * - capacity_usage: units used per resource and date; the conditional UPDATE on it is what
 *   keeps concurrent orders (in any process) from overselling.
 * - capacity_orders / capacity_ledger: which order took what, for idempotency and release.
 * A resource is (kind, code, slot): slot is the pool of a node resource, the window of a zone
 * window, and '' for a route departure.
 */
export const createCapacityTables: ReadonlyArray<string> = [
  `CREATE TABLE capacity_network (
    id smallint PRIMARY KEY CHECK (id = 1),
    version bigint NOT NULL,
    document jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
  )`,
  `CREATE TABLE capacity_usage (
    kind text NOT NULL,
    code text NOT NULL,
    slot text NOT NULL,
    day date NOT NULL,
    used integer NOT NULL CHECK (used >= 0),
    PRIMARY KEY (kind, code, slot, day)
  )`,
  `CREATE TABLE capacity_orders (
    order_id text PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
  )`,
  `CREATE TABLE capacity_ledger (
    order_id text NOT NULL REFERENCES capacity_orders (order_id) ON DELETE CASCADE,
    kind text NOT NULL,
    code text NOT NULL,
    slot text NOT NULL,
    day date NOT NULL,
    units integer NOT NULL CHECK (units > 0),
    PRIMARY KEY (order_id, kind, code, slot, day)
  )`,
  `CREATE INDEX capacity_ledger_resource ON capacity_ledger (kind, code, day)`
]

export const migration0002 = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.forEach(createCapacityTables, (statement) => sql.unsafe(statement), { discard: true })
)

/**
 * Every change of a usage row bumps its revision (under the row lock, so in commit order): a
 * replica that receives absolute usage values out of order keeps the one with the highest revision.
 */
export const migration0003 = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`ALTER TABLE capacity_usage ADD COLUMN revision integer NOT NULL DEFAULT 0`
)

/*
 * The steps both versions of capacity_consume take alike, shared so that they cannot drift apart:
 * create the usage rows the order needs, lock them in one fixed order and find the first one short
 * of room (`short`, `used + amount` past the total, added up as `sum` says); then add every use and
 * record it in the ledger (`taken`).
 */

/** The room check of migrations 0004 and 0005: in integer, so a sum past 2,147,483,647 failed the statement. */
const INTEGER_SUM = "u.used + w.amount"
/** Migration 0012's: two integers added in bigint always fit, and the sum compares with the total as it is. */
const BIGINT_SUM = "u.used::bigint + w.amount"

/** Creates the usage rows `p_wanted` names, then locks them in one fixed order (no deadlock between orders). */
const lockUsage = `     INSERT INTO capacity_usage AS u (kind, code, slot, day, used)
       SELECT w.kind, w.code, w.slot, w.day, 0 FROM jsonb_to_recordset(p_wanted) AS w(kind text, code text, slot text, day date)
       ORDER BY 1, 2, 3, 4
       ON CONFLICT DO NOTHING;
     PERFORM 1 FROM capacity_usage u
       JOIN jsonb_to_recordset(p_wanted) AS w(kind text, code text, slot text, day date)
         ON u.kind = w.kind AND u.code = w.code AND u.slot = w.slot AND u.day = w.day
       ORDER BY u.kind, u.code, u.slot, u.day
       FOR UPDATE OF u;`

/** The first use of `p_wanted` short of room (`short`; FOUND says whether there is one). */
const findShortest = (sum: string) => `     SELECT w.kind, w.code, w.slot, w.day, w.amount, w.total INTO short
       FROM jsonb_to_recordset(p_wanted) AS w(kind text, code text, slot text, day date, amount integer, total integer)
       JOIN capacity_usage u ON u.kind = w.kind AND u.code = w.code AND u.slot = w.slot AND u.day = w.day
       WHERE ${sum} > w.total
       ORDER BY w.kind, w.code, w.slot, w.day
       LIMIT 1;`

const lockUsageFindShortest = (sum: string) => `${lockUsage}\n${findShortest(sum)}`

const takeAndRecord = `     RETURN QUERY
       WITH wanted AS (
         SELECT * FROM jsonb_to_recordset(p_wanted) AS w(kind text, code text, slot text, day date, amount integer, total integer)
       ), taken AS (
         UPDATE capacity_usage u SET used = u.used + w.amount, revision = u.revision + 1
         FROM wanted w
         WHERE u.kind = w.kind AND u.code = w.code AND u.slot = w.slot AND u.day = w.day
         RETURNING u.kind, u.code, u.slot, u.day, u.used, u.revision, w.amount, w.total
       ), recorded AS (
         INSERT INTO capacity_ledger (order_id, kind, code, slot, day, units)
         SELECT p_order_id, t.kind, t.code, t.slot, t.day, t.amount FROM taken t
       )`

/**
 * An order's consumption and its release, each one statement: a round trip costs the server more
 * than the SQL does, and a single statement is its own transaction.
 *
 * capacity_consume(order, wanted): `wanted` is a JSON array of {kind, code, slot, day, amount,
 * total}. The order row comes first (a conflict: ALREADY_APPLIED); the usage rows it needs are
 * created, then locked in one fixed order (no deadlock between orders in any process); if any
 * lacks room the order row is removed again and one EXHAUSTED row names the first such use;
 * otherwise every use is added and recorded in the ledger, and the changed rows come back as
 * APPLIED rows.
 *
 * capacity_release(order): one UNKNOWN row when no such order is held; otherwise the order goes
 * (its ledger rows with it), the rows it held are locked in the same order and lowered, and come
 * back as RELEASED rows.
 */
const consumeFunction = (sum: string) =>
  `CREATE FUNCTION capacity_consume(p_order_id text, p_wanted jsonb)
   RETURNS TABLE (outcome text, kind text, code text, slot text, day text, used integer, revision integer, amount integer, total integer)
   LANGUAGE plpgsql AS $fn$
   #variable_conflict use_column
   DECLARE
     short record;
   BEGIN
     INSERT INTO capacity_orders (order_id) VALUES (p_order_id) ON CONFLICT (order_id) DO NOTHING;
     IF NOT FOUND THEN
       RETURN QUERY SELECT 'ALREADY_APPLIED'::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::integer, NULL::integer, NULL::integer, NULL::integer;
       RETURN;
     END IF;
${lockUsageFindShortest(sum)}
     IF FOUND THEN
       DELETE FROM capacity_orders o WHERE o.order_id = p_order_id;
       RETURN QUERY SELECT 'EXHAUSTED'::text, short.kind, short.code, short.slot, to_char(short.day, 'YYYY-MM-DD'), NULL::integer, NULL::integer, short.amount, short.total;
       RETURN;
     END IF;
${takeAndRecord}
       SELECT 'APPLIED'::text, t.kind, t.code, t.slot, to_char(t.day, 'YYYY-MM-DD'), t.used, t.revision, t.amount, t.total FROM taken t;
   END
   $fn$`

export const capacityFunctions: ReadonlyArray<string> = [
  consumeFunction(INTEGER_SUM),
  `CREATE FUNCTION capacity_release(p_order_id text)
   RETURNS TABLE (outcome text, kind text, code text, slot text, day text, used integer, revision integer)
   LANGUAGE plpgsql AS $fn$
   #variable_conflict use_column
   DECLARE
     held jsonb;
     found_order boolean;
   BEGIN
     WITH gone AS (DELETE FROM capacity_orders o WHERE o.order_id = p_order_id RETURNING o.order_id)
     SELECT count(*) > 0,
            coalesce(jsonb_agg(jsonb_build_object('kind', l.kind, 'code', l.code, 'slot', l.slot, 'day', l.day, 'units', l.units))
                     FILTER (WHERE l.kind IS NOT NULL), '[]'::jsonb)
       INTO found_order, held
       FROM gone LEFT JOIN capacity_ledger l ON l.order_id = gone.order_id;
     IF NOT found_order THEN
       RETURN QUERY SELECT 'UNKNOWN'::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::integer, NULL::integer;
       RETURN;
     END IF;
     PERFORM 1 FROM capacity_usage u
       JOIN jsonb_to_recordset(held) AS g(kind text, code text, slot text, day date)
         ON u.kind = g.kind AND u.code = g.code AND u.slot = g.slot AND u.day = g.day
       ORDER BY u.kind, u.code, u.slot, u.day
       FOR UPDATE OF u;
     RETURN QUERY
       UPDATE capacity_usage u SET used = GREATEST(u.used - g.units, 0), revision = u.revision + 1
       FROM jsonb_to_recordset(held) AS g(kind text, code text, slot text, day date, units integer)
       WHERE u.kind = g.kind AND u.code = g.code AND u.slot = g.slot AND u.day = g.day
       RETURNING 'RELEASED'::text, u.kind, u.code, u.slot, to_char(u.day, 'YYYY-MM-DD'), u.used, u.revision;
   END
   $fn$`
]

export const migration0004 = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.forEach(capacityFunctions, (statement) => sql.unsafe(statement), { discard: true })
)

/**
 * An order remembers what was asked (`request`: the order's content, without its id), so that the
 * same order id sent again with other content is told apart from a retry. The comparison is made
 * here, under the insert that decides the order's fate, so requests racing with one id in any
 * number of processes still apply once: the loser of the insert compares with the winner's row.
 *
 * capacity_consume(order, wanted, request) is capacity_consume(order, wanted) but for that: a
 * conflict on the order id answers ALREADY_APPLIED when the stored request equals `request` (jsonb
 * equality: key order and number spelling do not matter) or either is NULL (an order applied
 * before this migration, or without a request), and otherwise one CONFLICT row carrying the stored
 * request. The stored row is read under FOR SHARE; if a release removed it since the insert, the
 * insert is tried again. The two-argument function stays for processes of the earlier version.
 */
const consumeWithRequestFunction = (sum: string) =>
  `CREATE FUNCTION capacity_consume(p_order_id text, p_wanted jsonb, p_request jsonb)
   RETURNS TABLE (outcome text, kind text, code text, slot text, day text, used integer, revision integer, amount integer, total integer, stored jsonb)
   LANGUAGE plpgsql AS $fn$
   #variable_conflict use_column
   DECLARE
     short record;
     applied jsonb;
   BEGIN
     LOOP
       INSERT INTO capacity_orders (order_id, request) VALUES (p_order_id, p_request) ON CONFLICT (order_id) DO NOTHING;
       EXIT WHEN FOUND;
       SELECT o.request INTO applied FROM capacity_orders o WHERE o.order_id = p_order_id FOR SHARE;
       IF FOUND THEN
         IF applied IS NULL OR p_request IS NULL OR applied = p_request THEN
           RETURN QUERY SELECT 'ALREADY_APPLIED'::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::integer, NULL::integer, NULL::integer, NULL::integer, NULL::jsonb;
         ELSE
           RETURN QUERY SELECT 'CONFLICT'::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::integer, NULL::integer, NULL::integer, NULL::integer, applied;
         END IF;
         RETURN;
       END IF;
     END LOOP;
${lockUsageFindShortest(sum)}
     IF FOUND THEN
       DELETE FROM capacity_orders o WHERE o.order_id = p_order_id;
       RETURN QUERY SELECT 'EXHAUSTED'::text, short.kind, short.code, short.slot, to_char(short.day, 'YYYY-MM-DD'), NULL::integer, NULL::integer, short.amount, short.total, NULL::jsonb;
       RETURN;
     END IF;
${takeAndRecord}
       SELECT 'APPLIED'::text, t.kind, t.code, t.slot, to_char(t.day, 'YYYY-MM-DD'), t.used, t.revision, t.amount, t.total, NULL::jsonb FROM taken t;
   END
   $fn$`

export const orderRequestStatements: ReadonlyArray<string> = [
  `ALTER TABLE capacity_orders ADD COLUMN request jsonb`,
  consumeWithRequestFunction(INTEGER_SUM)
]

export const migration0005 = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.forEach(orderRequestStatements, (statement) => sql.unsafe(statement), { discard: true })
)

/**
 * The order functions look each usage row up by its key. `jsonb_to_recordset` is estimated at 100
 * rows, so the planner joined it with a sequential scan of capacity_usage, every row ever used, in
 * each of the three statements of a consumption (lock, find the use short of room, add): PostgreSQL's
 * CPU per order grew with the table (5 ms per order with 5,800 rows, the orders benchmark; see
 * docs/capacity.md, "Orders at scale"). With sequential scans off inside the functions, each use is
 * one lookup of the primary key (a nested loop over the wanted rows); nothing else they read is
 * scanned whole.
 */
export const capacityKeyLookups: ReadonlyArray<string> = [
  `ALTER FUNCTION capacity_consume(text, jsonb) SET enable_seqscan = off`,
  `ALTER FUNCTION capacity_consume(text, jsonb, jsonb) SET enable_seqscan = off`,
  `ALTER FUNCTION capacity_release(text) SET enable_seqscan = off`
]

export const migration0010 = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.forEach(capacityKeyLookups, (statement) => sql.unsafe(statement), { discard: true })
)

/**
 * Both capacity_consume functions compared `used + amount` with the total in integer: with a total
 * near 2,147,483,647 (UnitBounds.ts lets one be that large) and usage near it, an order within the
 * total overflowed the sum and failed with "integer out of range" (a 500) instead of EXHAUSTED (a
 * 409). The sum is now taken in bigint. The columns stay integer: a total is at most
 * 2,147,483,647 and an order is added only when the sum is within it, so `used` never passes it
 * (docs/capacity.md, "Integers in PostgreSQL"). Replacing a function drops its settings: the key
 * lookups of 0010 are set again.
 */
export const bigintRoomCheck: ReadonlyArray<string> = [
  consumeFunction(BIGINT_SUM).replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION"),
  consumeWithRequestFunction(BIGINT_SUM).replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION"),
  ...capacityKeyLookups.filter((statement) => statement.includes("capacity_consume"))
]

export const migration0012 = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.forEach(bigintRoomCheck, (statement) => sql.unsafe(statement), { discard: true })
)

/**
 * capacity_consume_many(orders): the orders that arrived together, in one statement and one
 * transaction (CapacityRepository.consumeMany). `orders` is a JSON array of {orderId, request,
 * wanted} (`request` left out where capacity_consume's is NULL), no order id twice: the caller sees
 * to that; every answer row carries `ord`, the order's index in it.
 *
 * It keeps the lock order of capacity_consume and capacity_release, so that groups, single orders
 * and releases in any process cannot deadlock: first the order rows of the whole group in id order,
 * then every usage row the group needs in the one key order, then each order in turn, in the
 * array's order: its room check against the usage as the orders before it left it, then its uses
 * and ledger rows, or, short of room, its order row removed again. When every order fits, that
 * comes to one pass over all of them (a running sum per usage row), which is what it does then.
 * An order is answered as capacity_consume answers it (APPLIED rows, or one ALREADY_APPLIED,
 * CONFLICT or EXHAUSTED row),
 * except that an order id whose row was released between the insert and the read is one RETRY row:
 * capacity_consume would try the insert again, out of the group's lock order here, so the caller
 * sends it alone.
 */
const consumeManyFunction = `CREATE FUNCTION capacity_consume_many(p_orders jsonb)
   RETURNS TABLE (ord integer, outcome text, kind text, code text, slot text, day text, used integer, revision integer, amount integer, total integer, stored jsonb)
   LANGUAGE plpgsql AS $fn$
   #variable_conflict use_column
   DECLARE
     g record;
     short record;
     applied jsonb;
     fresh text[];
     p_order_id text;
     p_wanted jsonb;
   BEGIN
     WITH inserted AS (
       INSERT INTO capacity_orders (order_id, request)
         SELECT e.v->>'orderId', e.v->'request' FROM jsonb_array_elements(p_orders) AS e(v)
         ORDER BY 1
         ON CONFLICT (order_id) DO NOTHING
         RETURNING capacity_orders.order_id
     ) SELECT coalesce(array_agg(i.order_id), '{}') INTO fresh FROM inserted i;

     FOR g IN SELECT (e.i - 1)::integer AS ord, e.v->>'orderId' AS order_id, e.v->'request' AS request
              FROM jsonb_array_elements(p_orders) WITH ORDINALITY AS e(v, i)
              WHERE NOT (e.v->>'orderId' = ANY (fresh)) ORDER BY e.i LOOP
       SELECT o.request INTO applied FROM capacity_orders o WHERE o.order_id = g.order_id FOR SHARE;
       IF NOT FOUND THEN
         RETURN QUERY SELECT g.ord, 'RETRY'::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::integer, NULL::integer, NULL::integer, NULL::integer, NULL::jsonb;
       ELSIF applied IS NULL OR g.request IS NULL OR applied = g.request THEN
         RETURN QUERY SELECT g.ord, 'ALREADY_APPLIED'::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::integer, NULL::integer, NULL::integer, NULL::integer, NULL::jsonb;
       ELSE
         RETURN QUERY SELECT g.ord, 'CONFLICT'::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::integer, NULL::integer, NULL::integer, NULL::integer, applied;
       END IF;
     END LOOP;

     SELECT jsonb_agg(DISTINCT jsonb_build_object('kind', w.kind, 'code', w.code, 'slot', w.slot, 'day', w.day)) INTO p_wanted
       FROM jsonb_array_elements(p_orders) AS e(v), jsonb_to_recordset(e.v->'wanted') AS w(kind text, code text, slot text, day date)
       WHERE e.v->>'orderId' = ANY (fresh);
     IF p_wanted IS NULL THEN
       RETURN;
     END IF;
${lockUsage}

     -- When every order fits, as most groups do, all are taken in one pass: each order's usage is the
     -- usage before the group plus its own and the earlier orders' uses (a running sum per row).
     RETURN QUERY
       WITH wanted AS (
         SELECT (e.i - 1)::integer AS ord, e.v->>'orderId' AS order_id, w.kind, w.code, w.slot, w.day, w.amount, w.total
           FROM jsonb_array_elements(p_orders) WITH ORDINALITY AS e(v, i),
                jsonb_to_recordset(e.v->'wanted') AS w(kind text, code text, slot text, day date, amount integer, total integer)
           WHERE e.v->>'orderId' = ANY (fresh)
       ), running AS (
         SELECT w.ord, w.order_id, w.kind, w.code, w.slot, w.day, w.amount, w.total,
                u.used::bigint + sum(w.amount) OVER turn AS used_after, u.revision + row_number() OVER turn AS revision_after
           FROM wanted w JOIN capacity_usage u ON u.kind = w.kind AND u.code = w.code AND u.slot = w.slot AND u.day = w.day
           WINDOW turn AS (PARTITION BY w.kind, w.code, w.slot, w.day ORDER BY w.ord)
       ), fits AS (
         SELECT NOT EXISTS (SELECT 1 FROM running r WHERE r.used_after > r.total) AS ok
       ), taken AS (
         UPDATE capacity_usage u SET used = s.used_after, revision = s.revision_after
           FROM (SELECT DISTINCT ON (r.kind, r.code, r.slot, r.day) r.kind, r.code, r.slot, r.day, r.used_after, r.revision_after
                   FROM running r ORDER BY r.kind, r.code, r.slot, r.day, r.ord DESC) s, fits f
           WHERE f.ok AND u.kind = s.kind AND u.code = s.code AND u.slot = s.slot AND u.day = s.day
       ), recorded AS (
         INSERT INTO capacity_ledger (order_id, kind, code, slot, day, units)
           SELECT r.order_id, r.kind, r.code, r.slot, r.day, r.amount FROM running r, fits f WHERE f.ok
       )
       SELECT r.ord, 'APPLIED'::text, r.kind, r.code, r.slot, to_char(r.day, 'YYYY-MM-DD'), r.used_after::integer, r.revision_after::integer,
              r.amount, r.total, NULL::jsonb
         FROM running r, fits f WHERE f.ok;
     IF FOUND THEN
       RETURN;
     END IF;

     -- Some order is short of room: each in turn, as capacity_consume takes one.
     FOR g IN SELECT (e.i - 1)::integer AS ord, e.v->>'orderId' AS order_id, e.v->'wanted' AS wanted
              FROM jsonb_array_elements(p_orders) WITH ORDINALITY AS e(v, i)
              WHERE e.v->>'orderId' = ANY (fresh) ORDER BY e.i LOOP
       p_order_id := g.order_id;
       p_wanted := g.wanted;
${findShortest(BIGINT_SUM)}
       IF FOUND THEN
         DELETE FROM capacity_orders o WHERE o.order_id = p_order_id;
         RETURN QUERY SELECT g.ord, 'EXHAUSTED'::text, short.kind, short.code, short.slot, to_char(short.day, 'YYYY-MM-DD'), NULL::integer, NULL::integer, short.amount, short.total, NULL::jsonb;
         CONTINUE;
       END IF;
${takeAndRecord}
         SELECT g.ord, 'APPLIED'::text, t.kind, t.code, t.slot, to_char(t.day, 'YYYY-MM-DD'), t.used, t.revision, t.amount, t.total, NULL::jsonb FROM taken t;
     END LOOP;
   END
   $fn$`

export const orderGroupStatements: ReadonlyArray<string> = [
  consumeManyFunction,
  `ALTER FUNCTION capacity_consume_many(jsonb) SET enable_seqscan = off`
]

export const migration0013 = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.forEach(orderGroupStatements, (statement) => sql.unsafe(statement), { discard: true })
)
