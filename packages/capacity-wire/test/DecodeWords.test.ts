import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { decodeNetwork } from "@retail/capacity"
import { decodeDeliveryRequestA, decodeDeliveryRequestB } from "../src/index.ts"

/**
 * The 400 texts clients read are the words Effect 3's Schema used (SchemaExplain.ts): these are
 * what Effect 3.22 answered for these bodies, byte for byte (struct and union descriptions, a
 * struct with defaults, a tagged union's key, `X | undefined` alternatives, inputs quoted).
 */

const failureMessage = <A>(decoded: Result.Result<A, { readonly message: string }>): string =>
  Result.isFailure(decoded) ? decoded.failure.message : "decoded"

const messageOf = (variant: string, body: string): string => {
  const input: unknown = JSON.parse(body)
  if (variant === "A") return failureMessage(decodeDeliveryRequestA(input))
  if (variant === "B") return failureMessage(decodeDeliveryRequestB(input))
  return failureMessage(decodeNetwork(input))
}

const cases: ReadonlyArray<readonly [variant: string, body: string, message: string]> = [
  [
    "A",
    "{\"purchaseDate\":{\"__proto__\":[1],\"toString\":\"t\"},\"items\":[1,[2],{\"constructor\":5}]}",
    "purchaseDate: Expected string, actual {\"__proto__\":[1],\"toString\":\"t\"}; items[0]: Expected { readonly origin: minLength(1); readonly entityType: \"CD\" | \"TD\" | \"PRV\" | \"SELLER\"; readonly skuCode: minLength(1); readonly zone: string; readonly dispatchType: \"NORMAL\" | \"EXPRESS\"; readonly quantity: positive; readonly destination: string; readonly latitude: between(-90, 90); readonly longitude: between(-180, 180); readonly deliveryMode: \"HOME_DELIVERY\" | \"STORE_WITHDRAWAL\"; readonly line?: string | undefined; readonly zoneByChannel?: string | undefined; readonly measurable?: string | undefined; readonly units?: Int & positive | undefined; readonly division?: string | undefined; readonly province?: string | undefined; readonly weight?: nonNegative | undefined; readonly hasFreightAttributeConfiguration?: boolean | undefined; readonly attributes?: ReadonlyArray<{ readonly attribute: string; readonly attributeValue: string; readonly attributeCode: string }> | undefined; readonly saleChannel?: string | undefined; readonly presentationCode?: string | undefined; readonly entityCode?: string | undefined; readonly groupName?: string | undefined }, actual 1; items[1]: Expected { readonly origin: minLength(1); readonly entityType: \"CD\" | \"TD\" | \"PRV\" | \"SELLER\"; readonly skuCode: minLength(1); readonly zone: string; readonly dispatchType: \"NORMAL\" | \"EXPRESS\"; readonly quantity: positive; readonly destination: string; readonly latitude: between(-90, 90); readonly longitude: between(-180, 180); readonly deliveryMode: \"HOME_DELIVERY\" | \"STORE_WITHDRAWAL\"; readonly line?: string | undefined; readonly zoneByChannel?: string | undefined; readonly measurable?: string | undefined; readonly units?: Int & positive | undefined; readonly division?: string | undefined; readonly province?: string | undefined; readonly weight?: nonNegative | undefined; readonly hasFreightAttributeConfiguration?: boolean | undefined; readonly attributes?: ReadonlyArray<{ readonly attribute: string; readonly attributeValue: string; readonly attributeCode: string }> | undefined; readonly saleChannel?: string | undefined; readonly presentationCode?: string | undefined; readonly entityCode?: string | undefined; readonly groupName?: string | undefined }, actual [2]; items[2].origin: is required; items[2].entityType: is required; items[2].skuCode: is required; items[2].zone: is required; items[2].dispatchType: is required; items[2].quantity: is required; items[2].destination: is required; items[2].latitude: is required; items[2].longitude: is required; items[2].deliveryMode: is required"
  ],
  [
    "A",
    "null",
    "(root): Expected { readonly purchaseDate: { string | filter }; readonly items: minItems(1); readonly isLastRoute?: boolean | undefined; readonly isPurchaseOrderDeliveryDateRequest?: boolean | undefined }, actual null"
  ],
  [
    "B",
    "{\"purchaseDate\":\"2027-03-01\",\"saleChannel\":\"W\",\"deliveryData\":{\"latitude\":1,\"longitude\":2},\"items\":[{\"skuCode\":\"S\",\"quantity\":1,\"length\":-1,\"routePriority\":1.5,\"units\":1e400}],\"calculationOptions\":{\"maxPickupPoint\":-1,\"rangeStart\":\"2027-02-30\"}}",
    "calculationOptions.rangeStart: expected a real date YYYY-MM-DD; calculationOptions.maxPickupPoint: must be an integer greater than 0, or Expected null, actual -1; items[0].routePriority: Expected an integer, actual 1.5; items[0].units: Expected an integer, actual Infinity; items[0].length: must be >= 0"
  ],
  [
    "B",
    "{\"purchaseDate\":\"2027-03-01\",\"saleChannel\":\"\",\"deliveryData\":[],\"items\":{},\"calculationOptions\":null,\"dispatchMode\":null}",
    "dispatchMode: Expected \"HOME_DELIVERY\" | \"STORE_WITHDRAWAL\" | \"ALL_DISPATCH_MODES\", actual null; saleChannel: must not be empty; calculationOptions: Expected { readonly calculate?: \"SEARCH_ORIGINS_BY_COORDINATES\"; readonly rangeStart?: { string | filter }; readonly rangeEnd?: { string | filter }; readonly optimization?: \"PROXIMITY_STORE\"; readonly maxOrigins?: Int & positive; readonly maxItemsPerOrigin?: Int & positive; readonly maxDistancePickingStore?: nonNegative; readonly maxPickupPoint?: Int & positive | null; readonly validateStock?: boolean; readonly dispatchCostEnabled?: boolean; readonly pickupCompanyCode?: string; readonly useExternalPickupCompanyCode?: boolean; readonly useExternalDeliveryCompanyCode?: boolean }, actual null; deliveryData: Expected { readonly latitude: between(-90, 90); readonly longitude: between(-180, 180); readonly zone?: string; readonly ubigeoCode?: string; readonly destination?: string }, actual []; items: Expected ReadonlyArray<{ readonly skuCode: minLength(1); readonly origin?: string; readonly companyCode?: string; readonly line?: string; readonly presentationCode?: string; readonly division?: string; readonly measurable?: string; readonly routePriority?: Int; readonly units?: Int & positive; readonly quantity: positive; readonly weight?: nonNegative; readonly height?: nonNegative; readonly width?: nonNegative; readonly length?: nonNegative; readonly volume?: nonNegative; readonly attributes?: ReadonlyArray<{ readonly attribute: string; readonly attributeValue: string; readonly attributeCode: string }> }>, actual {}"
  ],
  [
    "N",
    "{\"nodes\":[],\"routes\":[{\"id\":\"R\",\"source\":\"A\",\"target\":{\"kind\":[\"NODE\"],\"node\":\"B\"}},{\"target\":{\"kind\":{\"a\":1}}},{\"target\":{}},{\"target\":{\"kind\":\"ZONES\"}},{\"target\":{\"kind\":\"NODE\",\"zones\":[]}}],\"zones\":[{\"code\":\"Z\",\"name\":\"n\",\"ubigeos\":[],\"windows\":[{}],\"deliveryDays\":null,\"blockedDates\":[\"x\"]}],\"stock\":null}",
    "routes[0].target.kind: Expected \"NODE\", actual [\"NODE\"]; routes[0].dispatchTypes: is required; routes[0].deliveryModes: is required; routes[0].departureDays: is required; routes[0].departureCutoff: is required; routes[0].leadTime: is required; routes[0].capacityPerDeparture: is required; routes[0].cost: is required; routes[1].id: is required; routes[1].source: is required; routes[1].target.kind: Expected \"NODE\" | \"ZONES\", actual {\"a\":1}; routes[1].dispatchTypes: is required; routes[1].deliveryModes: is required; routes[1].departureDays: is required; routes[1].departureCutoff: is required; routes[1].leadTime: is required; routes[1].capacityPerDeparture: is required; routes[1].cost: is required; routes[2].id: is required; routes[2].source: is required; routes[2].target.kind: is required; routes[2].dispatchTypes: is required; routes[2].deliveryModes: is required; routes[2].departureDays: is required; routes[2].departureCutoff: is required; routes[2].leadTime: is required; routes[2].capacityPerDeparture: is required; routes[2].cost: is required; routes[3].id: is required; routes[3].source: is required; routes[3].target.zones: is required; routes[3].dispatchTypes: is required; routes[3].deliveryModes: is required; routes[3].departureDays: is required; routes[3].departureCutoff: is required; routes[3].leadTime: is required; routes[3].capacityPerDeparture: is required; routes[3].cost: is required; routes[4].id: is required; routes[4].source: is required; routes[4].target.node: is required; routes[4].dispatchTypes: is required; routes[4].deliveryModes: is required; routes[4].departureDays: is required; routes[4].departureCutoff: is required; routes[4].leadTime: is required; routes[4].capacityPerDeparture: is required; routes[4].cost: is required; zones[0].ubigeos: must not be empty; zones[0].deliveryDays: Expected ReadonlyArray<\"MON\" | \"TUE\" | \"WED\" | \"THU\" | \"FRI\" | \"SAT\" | \"SUN\"> | undefined, actual null; zones[0].windows[0].code: is required; zones[0].windows[0].start: is required; zones[0].windows[0].end: is required; zones[0].windows[0].capacity: is required; zones[0].blockedDates[0]: expected a real date YYYY-MM-DD; zones[0].blockedDates: Expected undefined, actual [\"x\"]; stock: Expected ReadonlyArray<{ readonly node: a string matching the pattern ^\\S(.*\\S)?$; readonly sku: a string matching the pattern ^\\S(.*\\S)?$; readonly units: Int & nonNegative }> | undefined, actual null"
  ],
  [
    "N",
    "{\"nodes\":[{\"pickingCapacity\":{\"NORMAL\":1},\"dispatchCapacity\":\"5\",\"holidays\":null,\"timeZone\":null,\"address\":{\"latitude\":\"1\",\"longitude\":-181}}],\"routes\":[],\"zones\":[]}",
    "nodes[0].code: is required; nodes[0].type: is required; nodes[0].name: is required; nodes[0].shortName: is required; nodes[0].address.address: is required; nodes[0].address.district: is required; nodes[0].address.province: is required; nodes[0].address.ubigeoCode: is required; nodes[0].address.country: is required; nodes[0].address.latitude: Expected number, actual \"1\"; nodes[0].address.longitude: Expected a number between -180 and 180, actual -181; nodes[0].contact: is required; nodes[0].timeZone: Expected string | undefined, actual null; nodes[0].pickingDays: is required; nodes[0].pickingCutoff: is required; nodes[0].processingDays: is required; nodes[0].holidays: Expected ReadonlyArray<{ string | filter }> | undefined, actual null; nodes[0].pickingCapacity: Expected number, actual {\"NORMAL\":1}; nodes[0].pickingCapacity.EXPRESS: is required; nodes[0].dispatchCapacity: Expected number | { readonly NORMAL: Int & nonNegative; readonly EXPRESS: Int & nonNegative }, actual \"5\""
  ],
  [
    "N",
    "[1]",
    "(root): Expected Struct (Encoded side), actual [1]"
  ],
  [
    "N",
    "{\"nodes\":{},\"routes\":null}",
    "nodes: Expected ReadonlyArray<(Struct (Encoded side) <-> Struct (Type side))>, actual {}; routes: Expected ReadonlyArray<{ readonly id: a string matching the pattern ^\\S(.*\\S)?$; readonly source: a string matching the pattern ^\\S(.*\\S)?$; readonly target: { readonly kind: \"NODE\"; readonly node: a string matching the pattern ^\\S(.*\\S)?$ } | { readonly kind: \"ZONES\"; readonly zones: minItems(1) }; readonly dispatchTypes: minItems(1); readonly deliveryModes: minItems(1); readonly departureDays: minItems(1); readonly departureCutoff: { string | filter }; readonly leadTime: { readonly days: Int & nonNegative; readonly unit: \"BUSINESS_DAYS\" | \"CALENDAR_DAYS\" }; readonly capacityPerDeparture: Int & nonNegative; readonly cost: { readonly base: nonNegative; readonly perKg: nonNegative } }>, actual null; zones: is required"
  ]
]

describe("the words of a rejected document", () => {
  cases.forEach(([variant, body, message], index) => {
    it(`${variant} #${index}: Effect 3's text`, () => {
      expect(messageOf(variant, body)).toBe(message)
    })
  })
})
