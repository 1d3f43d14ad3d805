import { Result } from "effect"
import { expect, it } from "vitest"
import { buildSnapshot, decodeNetwork, ledgerFromUses } from "@retail/capacity"
import { decodeDeliveryRequestA, evaluateVariantA } from "../src/index.ts"
import { smallNetwork } from "../../capacity/test/fixtures.ts"

// The worked example of docs/capacity.md, step by step: keep the two in sync.
it("computes the worked example of docs/capacity.md", () => {
  const ledger = ledgerFromUses([
    { resource: { _tag: "Picking", node: "CD1", pool: "ALL" }, date: "2025-03-17", amount: 9 },
    { resource: { _tag: "ZoneWindow", zone: "Z1", window: "AM" }, date: "2025-03-19", amount: 2 }
  ])
  const snapshot = buildSnapshot(Result.getOrThrow(decodeNetwork(smallNetwork)), ledger)
  const request = Result.getOrThrow(decodeDeliveryRequestA({
    purchaseDate: "2025-03-14",
    items: [
      {
        origin: "CD1", entityType: "CD", skuCode: "SKU-A", line: "TV", zone: "", dispatchType: "NORMAL", quantity: 2,
        weight: 1.5, measurable: "UN", division: "ELECTRO", destination: "150122", latitude: -12.12, longitude: -77.03,
        deliveryMode: "HOME_DELIVERY"
      },
      {
        origin: "CD1", entityType: "CD", skuCode: "SKU-A", line: "TV", zone: "", dispatchType: "NORMAL", quantity: 1,
        weight: 4, measurable: "UN", division: "ELECTRO", destination: "150103", latitude: -12.05, longitude: -76.95,
        deliveryMode: "HOME_DELIVERY"
      }
    ]
  }))
  // Friday 14 March 2025, 15:30 in Lima: after CD1's 14:00 cut-off.
  const results = evaluateVariantA(snapshot, request, Date.parse("2025-03-14T15:30:00-05:00"))
  expect(results).toEqual(Result.succeed(EXPECTED))
})

const EXPECTED = [
  {
    "skuCode": "SKU-A",
    "line": "TV",
    "dispatchCode": "CD1-Z1-NH",
    "deliveryCost": 11.5,
    "measurable": "UN",
    "origin": "CD1",
    "zone": "Z1",
    "pickingDays": [
      "MON",
      "TUE",
      "WED",
      "THU",
      "FRI"
    ],
    "processingDays": 0,
    "leadTimes": [
      1
    ],
    "routeDaysOfWeek": [
      [
        "MON",
        "TUE",
        "WED",
        "THU",
        "FRI"
      ]
    ],
    "route": "R1",
    "pickingDate": "2025-03-18",
    "deliveryDates": [
      "2025-03-19",
      "2025-03-20",
      "2025-03-21",
      "2025-03-22",
      "2025-03-24"
    ],
    "deliveryTrace": [
      {
        "deliveryDate": "2025-03-19",
        "details": [
          {
            "sourceNode": "CD1",
            "targetNode": "Z1",
            "route": "R1",
            "usedDispatchCapacity": 0,
            "usedPickingCapacity": 0,
            "dispatchUnits": 2,
            "leadTime": 1,
            "daysOfWeek": "MON,TUE,WED,THU,FRI",
            "dispatchDate": "2025-03-18",
            "departureDate": "2025-03-18",
            "receptionDate": "2025-03-19"
          }
        ],
        "deliveryWindows": [
          {
            "deliveryWindow": "AM",
            "deliveryWindowStart": "09:00",
            "deliveryWindowEnd": "13:00",
            "blocked": true
          },
          {
            "deliveryWindow": "PM",
            "deliveryWindowStart": "14:00",
            "deliveryWindowEnd": "18:00",
            "blocked": false
          }
        ]
      },
      {
        "deliveryDate": "2025-03-20",
        "details": [
          {
            "sourceNode": "CD1",
            "targetNode": "Z1",
            "route": "R1",
            "usedDispatchCapacity": 0,
            "usedPickingCapacity": 0,
            "dispatchUnits": 2,
            "leadTime": 1,
            "daysOfWeek": "MON,TUE,WED,THU,FRI",
            "dispatchDate": "2025-03-18",
            "departureDate": "2025-03-18",
            "receptionDate": "2025-03-19"
          }
        ],
        "deliveryWindows": [
          {
            "deliveryWindow": "AM",
            "deliveryWindowStart": "09:00",
            "deliveryWindowEnd": "13:00",
            "blocked": false
          },
          {
            "deliveryWindow": "PM",
            "deliveryWindowStart": "14:00",
            "deliveryWindowEnd": "18:00",
            "blocked": false
          }
        ]
      },
      {
        "deliveryDate": "2025-03-21",
        "details": [
          {
            "sourceNode": "CD1",
            "targetNode": "Z1",
            "route": "R1",
            "usedDispatchCapacity": 0,
            "usedPickingCapacity": 0,
            "dispatchUnits": 2,
            "leadTime": 1,
            "daysOfWeek": "MON,TUE,WED,THU,FRI",
            "dispatchDate": "2025-03-18",
            "departureDate": "2025-03-18",
            "receptionDate": "2025-03-19"
          }
        ],
        "deliveryWindows": [
          {
            "deliveryWindow": "AM",
            "deliveryWindowStart": "09:00",
            "deliveryWindowEnd": "13:00",
            "blocked": false
          },
          {
            "deliveryWindow": "PM",
            "deliveryWindowStart": "14:00",
            "deliveryWindowEnd": "18:00",
            "blocked": false
          }
        ]
      },
      {
        "deliveryDate": "2025-03-22",
        "details": [
          {
            "sourceNode": "CD1",
            "targetNode": "Z1",
            "route": "R1",
            "usedDispatchCapacity": 0,
            "usedPickingCapacity": 0,
            "dispatchUnits": 2,
            "leadTime": 1,
            "daysOfWeek": "MON,TUE,WED,THU,FRI",
            "dispatchDate": "2025-03-18",
            "departureDate": "2025-03-18",
            "receptionDate": "2025-03-19"
          }
        ],
        "deliveryWindows": [
          {
            "deliveryWindow": "AM",
            "deliveryWindowStart": "09:00",
            "deliveryWindowEnd": "13:00",
            "blocked": false
          },
          {
            "deliveryWindow": "PM",
            "deliveryWindowStart": "14:00",
            "deliveryWindowEnd": "18:00",
            "blocked": false
          }
        ]
      },
      {
        "deliveryDate": "2025-03-24",
        "details": [
          {
            "sourceNode": "CD1",
            "targetNode": "Z1",
            "route": "R1",
            "usedDispatchCapacity": 0,
            "usedPickingCapacity": 0,
            "dispatchUnits": 2,
            "leadTime": 1,
            "daysOfWeek": "MON,TUE,WED,THU,FRI",
            "dispatchDate": "2025-03-18",
            "departureDate": "2025-03-18",
            "receptionDate": "2025-03-19"
          }
        ],
        "deliveryWindows": [
          {
            "deliveryWindow": "AM",
            "deliveryWindowStart": "09:00",
            "deliveryWindowEnd": "13:00",
            "blocked": false
          },
          {
            "deliveryWindow": "PM",
            "deliveryWindowStart": "14:00",
            "deliveryWindowEnd": "18:00",
            "blocked": false
          }
        ]
      }
    ],
    "message": "OK",
    "division": "ELECTRO",
    "arriveDates": [
      {
        "node": "CD1",
        "nodePurchaseOrder": null,
        "edgeId": null,
        "arriveDate": "2025-03-18",
        "code": 0,
        "message": "picking"
      },
      {
        "node": "Z1",
        "nodePurchaseOrder": null,
        "edgeId": "R1",
        "arriveDate": "2025-03-19",
        "code": 0,
        "message": "OK"
      }
    ],
    "detailedCapacityError": []
  },
  {
    "skuCode": "SKU-A",
    "line": "TV",
    "dispatchCode": "CD1-Z2-NH",
    "deliveryCost": 8.2,
    "measurable": "UN",
    "origin": "CD1",
    "zone": "Z2",
    "pickingDays": [
      "MON",
      "TUE",
      "WED",
      "THU",
      "FRI"
    ],
    "processingDays": 0,
    "leadTimes": [
      1,
      0
    ],
    "routeDaysOfWeek": [
      [
        "MON",
        "WED",
        "FRI"
      ],
      [
        "MON",
        "TUE",
        "WED",
        "THU",
        "FRI",
        "SAT"
      ]
    ],
    "route": "R2>R3",
    "pickingDate": "2025-03-17",
    "deliveryDates": [
      "2025-03-18",
      "2025-03-19",
      "2025-03-20",
      "2025-03-21",
      "2025-03-22"
    ],
    "deliveryTrace": [
      {
        "deliveryDate": "2025-03-18",
        "details": [
          {
            "sourceNode": "CD1",
            "targetNode": "HUB1",
            "route": "R2",
            "usedDispatchCapacity": 0,
            "usedPickingCapacity": 9,
            "dispatchUnits": 1,
            "leadTime": 1,
            "daysOfWeek": "MON,WED,FRI",
            "dispatchDate": "2025-03-17",
            "departureDate": "2025-03-17",
            "receptionDate": "2025-03-18"
          },
          {
            "sourceNode": "HUB1",
            "targetNode": "Z2",
            "route": "R3",
            "usedDispatchCapacity": 0,
            "usedPickingCapacity": 0,
            "dispatchUnits": 1,
            "leadTime": 0,
            "daysOfWeek": "MON,TUE,WED,THU,FRI,SAT",
            "dispatchDate": "2025-03-18",
            "departureDate": "2025-03-18",
            "receptionDate": "2025-03-18"
          }
        ],
        "deliveryWindows": [
          {
            "deliveryWindow": "AM",
            "deliveryWindowStart": "09:00",
            "deliveryWindowEnd": "13:00",
            "blocked": false
          },
          {
            "deliveryWindow": "PM",
            "deliveryWindowStart": "14:00",
            "deliveryWindowEnd": "18:00",
            "blocked": false
          }
        ]
      },
      {
        "deliveryDate": "2025-03-19",
        "details": [
          {
            "sourceNode": "CD1",
            "targetNode": "HUB1",
            "route": "R2",
            "usedDispatchCapacity": 0,
            "usedPickingCapacity": 9,
            "dispatchUnits": 1,
            "leadTime": 1,
            "daysOfWeek": "MON,WED,FRI",
            "dispatchDate": "2025-03-17",
            "departureDate": "2025-03-17",
            "receptionDate": "2025-03-18"
          },
          {
            "sourceNode": "HUB1",
            "targetNode": "Z2",
            "route": "R3",
            "usedDispatchCapacity": 0,
            "usedPickingCapacity": 0,
            "dispatchUnits": 1,
            "leadTime": 0,
            "daysOfWeek": "MON,TUE,WED,THU,FRI,SAT",
            "dispatchDate": "2025-03-18",
            "departureDate": "2025-03-18",
            "receptionDate": "2025-03-18"
          }
        ],
        "deliveryWindows": [
          {
            "deliveryWindow": "AM",
            "deliveryWindowStart": "09:00",
            "deliveryWindowEnd": "13:00",
            "blocked": false
          },
          {
            "deliveryWindow": "PM",
            "deliveryWindowStart": "14:00",
            "deliveryWindowEnd": "18:00",
            "blocked": false
          }
        ]
      },
      {
        "deliveryDate": "2025-03-20",
        "details": [
          {
            "sourceNode": "CD1",
            "targetNode": "HUB1",
            "route": "R2",
            "usedDispatchCapacity": 0,
            "usedPickingCapacity": 9,
            "dispatchUnits": 1,
            "leadTime": 1,
            "daysOfWeek": "MON,WED,FRI",
            "dispatchDate": "2025-03-17",
            "departureDate": "2025-03-17",
            "receptionDate": "2025-03-18"
          },
          {
            "sourceNode": "HUB1",
            "targetNode": "Z2",
            "route": "R3",
            "usedDispatchCapacity": 0,
            "usedPickingCapacity": 0,
            "dispatchUnits": 1,
            "leadTime": 0,
            "daysOfWeek": "MON,TUE,WED,THU,FRI,SAT",
            "dispatchDate": "2025-03-18",
            "departureDate": "2025-03-18",
            "receptionDate": "2025-03-18"
          }
        ],
        "deliveryWindows": [
          {
            "deliveryWindow": "AM",
            "deliveryWindowStart": "09:00",
            "deliveryWindowEnd": "13:00",
            "blocked": false
          },
          {
            "deliveryWindow": "PM",
            "deliveryWindowStart": "14:00",
            "deliveryWindowEnd": "18:00",
            "blocked": false
          }
        ]
      },
      {
        "deliveryDate": "2025-03-21",
        "details": [
          {
            "sourceNode": "CD1",
            "targetNode": "HUB1",
            "route": "R2",
            "usedDispatchCapacity": 0,
            "usedPickingCapacity": 9,
            "dispatchUnits": 1,
            "leadTime": 1,
            "daysOfWeek": "MON,WED,FRI",
            "dispatchDate": "2025-03-17",
            "departureDate": "2025-03-17",
            "receptionDate": "2025-03-18"
          },
          {
            "sourceNode": "HUB1",
            "targetNode": "Z2",
            "route": "R3",
            "usedDispatchCapacity": 0,
            "usedPickingCapacity": 0,
            "dispatchUnits": 1,
            "leadTime": 0,
            "daysOfWeek": "MON,TUE,WED,THU,FRI,SAT",
            "dispatchDate": "2025-03-18",
            "departureDate": "2025-03-18",
            "receptionDate": "2025-03-18"
          }
        ],
        "deliveryWindows": [
          {
            "deliveryWindow": "AM",
            "deliveryWindowStart": "09:00",
            "deliveryWindowEnd": "13:00",
            "blocked": false
          },
          {
            "deliveryWindow": "PM",
            "deliveryWindowStart": "14:00",
            "deliveryWindowEnd": "18:00",
            "blocked": false
          }
        ]
      },
      {
        "deliveryDate": "2025-03-22",
        "details": [
          {
            "sourceNode": "CD1",
            "targetNode": "HUB1",
            "route": "R2",
            "usedDispatchCapacity": 0,
            "usedPickingCapacity": 9,
            "dispatchUnits": 1,
            "leadTime": 1,
            "daysOfWeek": "MON,WED,FRI",
            "dispatchDate": "2025-03-17",
            "departureDate": "2025-03-17",
            "receptionDate": "2025-03-18"
          },
          {
            "sourceNode": "HUB1",
            "targetNode": "Z2",
            "route": "R3",
            "usedDispatchCapacity": 0,
            "usedPickingCapacity": 0,
            "dispatchUnits": 1,
            "leadTime": 0,
            "daysOfWeek": "MON,TUE,WED,THU,FRI,SAT",
            "dispatchDate": "2025-03-18",
            "departureDate": "2025-03-18",
            "receptionDate": "2025-03-18"
          }
        ],
        "deliveryWindows": [
          {
            "deliveryWindow": "AM",
            "deliveryWindowStart": "09:00",
            "deliveryWindowEnd": "13:00",
            "blocked": false
          },
          {
            "deliveryWindow": "PM",
            "deliveryWindowStart": "14:00",
            "deliveryWindowEnd": "18:00",
            "blocked": false
          }
        ]
      }
    ],
    "message": "OK",
    "division": "ELECTRO",
    "arriveDates": [
      {
        "node": "CD1",
        "nodePurchaseOrder": null,
        "edgeId": null,
        "arriveDate": "2025-03-17",
        "code": 0,
        "message": "picking"
      },
      {
        "node": "HUB1",
        "nodePurchaseOrder": null,
        "edgeId": "R2",
        "arriveDate": "2025-03-18",
        "code": 0,
        "message": "OK"
      },
      {
        "node": "Z2",
        "nodePurchaseOrder": null,
        "edgeId": "R3",
        "arriveDate": "2025-03-18",
        "code": 0,
        "message": "OK"
      }
    ],
    "detailedCapacityError": []
  }
]
