/**
 * A stored product as JSON (SQL over `products p`), rebuilt from its columns and child rows in
 * position order, for tests that check what was stored (the store keeps no copy of what was sent): a nullable field is null when it was sent null or absent, an
 * optional child field that is null was absent.
 */
export const STORED_DOCUMENT = `jsonb_build_object(
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

const NULLABLE_PRODUCT_KEYS = ["dispatchType", "companyCode", "taxSelective", "salesTax", "skuCodePlatform"] as const

/** A sent product as the store gives it back: nullable fields left out are null, unknown keys gone (`keys` of Product only). */
export const asStored = (sent: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const stored: Record<string, unknown> = JSON.parse(JSON.stringify(sent)) as Record<string, unknown>
  for (const key of NULLABLE_PRODUCT_KEYS) if (!(key in stored)) stored[key] = null
  const hierarchies = stored["hierarchies"]
  if (Array.isArray(hierarchies)) {
    stored["hierarchies"] = hierarchies.map((h: Record<string, unknown>) => ("hierarchyBreadcrumb" in h ? h : { ...h, hierarchyBreadcrumb: null }))
  }
  return stored
}
