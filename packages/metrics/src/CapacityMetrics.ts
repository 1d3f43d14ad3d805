import { counter, ENGINE_SECONDS, gauge, histogram } from "./Families.ts"

export const engineSeconds = histogram("capacity_engine_duration_seconds", "Engine time of one POST /v1/delivery/capacity (parse, plan, answer text)", ENGINE_SECONDS)
export const orders = counter("capacity_orders_total", "Capacity orders (consumptions) by outcome: taken, refused (409, the order id taken with other content)", ["outcome"])
export const orderGroupSize = histogram(
  "capacity_order_group_size",
  "Orders taken by one database statement: 1 alone, more when they arrived while earlier groups were in flight",
  [1, 2, 4, 8, 16, 32, 64]
)
export const replicaEventLagSeconds = gauge(
  "capacity_replica_event_lag_seconds",
  "Time between another process publishing a capacity event and this replica applying it (the last one applied)"
)
export const replicaEventsApplied = counter("capacity_replica_events_applied_total", "Capacity events of other processes applied by this replica")

export const historyForgotten = counter(
  "capacity_history_forgotten_total",
  "Rows of the capacity store's past deleted after CAPACITY_RETENTION_DAYS by this server's sweeps: orders (with their ledger), usage rows, network changes",
  ["kind"]
)
