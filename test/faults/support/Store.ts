import { Deferred, Effect, Schema } from "effect"
import { withSql } from "./Postgres.ts"

/**
 * Holds row locks on the given loads in an open transaction until the returned effect is run:
 * a worker persisting a batch of them then waits inside its transaction, with the entry pending.
 */
export const holdLoadLocks = (url: string, processCodes: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const locked = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    yield* withSql(url, (sql) =>
      sql.withTransaction(
        sql`SELECT process_code FROM loads WHERE process_code::text IN ${sql.in(processCodes)} FOR UPDATE`.pipe(
          Effect.andThen(Deferred.succeed(locked, undefined)),
          Effect.andThen(Deferred.await(release))
        )
      )).pipe(Effect.ignore, Effect.forkScoped)
    yield* Deferred.await(locked)
    return Deferred.succeed(release, undefined)
  })

const Counts = Schema.Array(Schema.Struct({ accepted: Schema.Number, persisted: Schema.Number }))

/** Accepted and persisted products over the given loads. */
export const loadTotals = (url: string, processCodes: ReadonlyArray<string>) =>
  withSql(url, (sql) =>
    sql`SELECT coalesce(sum(accepted), 0)::int AS accepted, coalesce(sum(persisted), 0)::int AS persisted
        FROM loads WHERE process_code::text IN ${sql.in(processCodes)}`.pipe(
      Effect.flatMap(Schema.decodeUnknownEffect(Counts)),
      Effect.map((rows) => rows[0] ?? { accepted: 0, persisted: 0 })
    ))

const Stored = Schema.Array(Schema.Struct({
  product_code: Schema.String,
  document: Schema.Unknown,
  barcodes: Schema.Number,
  hierarchies: Schema.Number,
  attributes: Schema.Number
}))

/**
 * A stored product as JSON, rebuilt from its columns and child rows in position order (the store
 * keeps no copy of what was sent): a nullable field is null when it was sent null or absent, an
 * optional child field that is null was absent.
 */
const STORED_DOCUMENT = `jsonb_build_object(
    'productCode', p.product_code, 'skuCode', p.sku_code, 'eanCode', p.ean_code, 'description', p.description,
    'price', p.price, 'length', p.length, 'width', p.width, 'height', p.height, 'weight', p.weight,
    'productType', p.product_type, 'dispatchType', p.dispatch_type, 'unitMeasurement', p.unit_measurement,
    'unitedNationsCode', p.united_nations_code, 'hierarchyCode', p.hierarchy_code, 'companyCode', p.company_code,
    'taxSale', p.tax_sale, 'taxSelective', p.tax_selective, 'salesTax', p.sales_tax, 'productPmmStatus', p.product_pmm_status,
    'dateUpdate', to_char(p.date_update, 'YYYY-MM-DD HH24:MI:SS'), 'isEcommerce', p.is_ecommerce, 'measurable', p.measurable,
    'skuCodePlatform', p.sku_code_platform, 'conversionFactor', p.conversion_factor,
    'barcodes', coalesce((SELECT jsonb_agg(jsonb_build_object('productCode', b.product_code, 'eanCode', b.ean_code, 'indicator', b.indicator)
      ORDER BY b.position) FROM product_barcodes b WHERE b.company = p.company AND b.product_code = p.product_code), '[]'),
    'hierarchies', coalesce((SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object('hierarchyCode', h.hierarchy_code,
        'hierarchyLevel', h.hierarchy_level, 'hierarchyParent', h.hierarchy_parent, 'hierarchyName', h.hierarchy_name,
        'hierarchyDescription', h.hierarchy_description)) || jsonb_build_object('hierarchyBreadcrumb', h.hierarchy_breadcrumb)
      ORDER BY h.position) FROM product_hierarchies h WHERE h.company = p.company AND h.product_code = p.product_code), '[]'),
    'lstAttributes', coalesce((SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object('attributeType', a.attribute_type,
        'parentAttributeCode', a.parent_attribute_code, 'attributeCode', a.attribute_code, 'attributeDescription', a.attribute_description,
        'productCode', a.product_code, 'attributeDescriptionDetail', a.attribute_description_detail))
      ORDER BY a.position) FROM product_attributes a WHERE a.company = p.company AND a.product_code = p.product_code), '[]')
  )`

/** Every stored product of a company whose code starts with `prefix`, as JSON, with its child row counts. */
export const storedProducts = (url: string, company: string, prefix: string) =>
  withSql(url, (sql) =>
    sql`SELECT p.product_code, ${sql.literal(STORED_DOCUMENT)} AS document,
          (SELECT count(*) FROM product_barcodes b WHERE b.company = p.company AND b.product_code = p.product_code)::int AS barcodes,
          (SELECT count(*) FROM product_hierarchies h WHERE h.company = p.company AND h.product_code = p.product_code)::int AS hierarchies,
          (SELECT count(*) FROM product_attributes a WHERE a.company = p.company AND a.product_code = p.product_code)::int AS attributes
        FROM products p WHERE p.company = ${company} AND p.product_code LIKE ${`${prefix}%`}
        ORDER BY p.product_code`.pipe(Effect.flatMap(Schema.decodeUnknownEffect(Stored))))

const Batches = Schema.Array(Schema.Struct({
  process_code: Schema.String,
  batch_no: Schema.Number,
  products: Schema.Number,
  outcome: Schema.String
}))

/** Every `load_batches` row (the batches persisted or dead-lettered), with its product count. */
export const recordedBatches = (url: string) =>
  withSql(url, (sql) =>
    sql`SELECT process_code::text AS process_code, batch_no, products, outcome FROM load_batches ORDER BY process_code, batch_no`.pipe(
      Effect.flatMap(Schema.decodeUnknownEffect(Batches))
    ))

const LoadRows = Schema.Array(Schema.Struct({ process_code: Schema.String, status: Schema.String, receiving: Schema.Boolean }))

/** The loads of a company as the database has them (a load is recorded once its file was read whole). */
export const loadsOf = (url: string, company: string) =>
  withSql(url, (sql) =>
    sql`SELECT process_code::text AS process_code, status, receiving FROM loads WHERE company = ${company}`.pipe(
      Effect.flatMap(Schema.decodeUnknownEffect(LoadRows))
    ))
