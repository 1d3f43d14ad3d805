import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Tables of the product upload store, one statement each so every dialect quirk stays visible. */
export const createTables: ReadonlyArray<string> = [
  `CREATE TABLE products (
    company text NOT NULL,
    product_code text NOT NULL,
    sku_code text NOT NULL,
    ean_code text NOT NULL,
    description text NOT NULL,
    price double precision NOT NULL,
    length double precision NOT NULL,
    width double precision NOT NULL,
    height double precision NOT NULL,
    weight double precision NOT NULL,
    product_type text NOT NULL,
    dispatch_type text,
    unit_measurement text NOT NULL,
    united_nations_code text NOT NULL,
    hierarchy_code text NOT NULL,
    company_code text,
    tax_sale text NOT NULL,
    tax_selective double precision,
    sales_tax double precision,
    product_pmm_status text NOT NULL,
    date_update timestamp NOT NULL,
    is_ecommerce text NOT NULL,
    measurable text NOT NULL,
    sku_code_platform text,
    conversion_factor bigint NOT NULL,
    document jsonb NOT NULL,
    process_code uuid NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company, product_code)
  )`,
  `CREATE TABLE product_barcodes (
    company text NOT NULL,
    product_code text NOT NULL,
    position integer NOT NULL,
    ean_code text NOT NULL,
    indicator text NOT NULL,
    PRIMARY KEY (company, product_code, position)
  )`,
  `CREATE TABLE product_hierarchies (
    company text NOT NULL,
    product_code text NOT NULL,
    position integer NOT NULL,
    hierarchy_code text NOT NULL,
    hierarchy_level integer NOT NULL,
    hierarchy_parent text,
    hierarchy_name text,
    hierarchy_description text,
    hierarchy_breadcrumb text,
    PRIMARY KEY (company, product_code, position)
  )`,
  `CREATE TABLE product_attributes (
    company text NOT NULL,
    product_code text NOT NULL,
    position integer NOT NULL,
    attribute_type text NOT NULL,
    parent_attribute_code text NOT NULL,
    attribute_code text NOT NULL,
    attribute_description text NOT NULL,
    attribute_description_detail text,
    PRIMARY KEY (company, product_code, position)
  )`,
  `CREATE TABLE loads (
    process_code uuid PRIMARY KEY,
    company text NOT NULL,
    source text NOT NULL,
    status text NOT NULL CHECK (status IN ('RECEIVED', 'PROCESSING', 'COMPLETED', 'COMPLETED_WITH_ERRORS', 'FAILED')),
    receiving boolean NOT NULL DEFAULT false,
    received integer NOT NULL DEFAULT 0,
    accepted integer NOT NULL DEFAULT 0,
    persisted integer NOT NULL DEFAULT 0,
    failed integer NOT NULL DEFAULT 0,
    dead_lettered integer NOT NULL DEFAULT 0,
    failure_reason text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    completed_at timestamptz
  )`,
  `CREATE TABLE load_errors (
    id bigserial PRIMARY KEY,
    process_code uuid NOT NULL,
    sku text NOT NULL,
    error text NOT NULL
  )`,
  `CREATE INDEX load_errors_by_load ON load_errors (process_code, id)`,
  `CREATE TABLE load_batches (
    process_code uuid NOT NULL,
    batch_no integer NOT NULL,
    products integer NOT NULL,
    outcome text NOT NULL CHECK (outcome IN ('PERSISTED', 'DEAD')),
    recorded_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (process_code, batch_no)
  )`,
  `CREATE TABLE load_events (
    id bigserial PRIMARY KEY,
    process_code uuid NOT NULL,
    payload jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz
  )`,
  `CREATE INDEX load_events_unpublished ON load_events (id) WHERE published_at IS NULL`
]

export const migration0001 = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.forEach(createTables, (statement) => sql.unsafe(statement), { discard: true })
)
