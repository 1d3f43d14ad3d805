import type { Benchmark } from "../Benchmark.ts"
import { capacity } from "./Capacity.ts"
import { capacityBesideLoad } from "./CapacityBesideLoad.ts"
import { capacityBudget } from "./CapacityBudget.ts"
import { capacityCheckout } from "./CapacityCheckout.ts"
import { capacityInstructions } from "./CapacityInstructions.ts"
import { capacityNational } from "./CapacityNational.ts"
import { capacityOrders } from "./CapacityOrders.ts"
import { effect4 } from "./Effect4.ts"
import { embedded } from "./Embedded.ts"
import { endToEnd } from "./EndToEnd.ts"
import { handleCsv } from "./HandleCsv.ts"
import { handleJson } from "./HandleJson.ts"
import { loadProducts } from "./LoadProducts.ts"
import { metricsOverhead } from "./MetricsOverhead.ts"
import { soak } from "./Soak.ts"
import { stockDeltas } from "./StockDeltas.ts"

/** Every benchmark of `npm run bench`, in the order they run (capacity-national last: with a stock feed its rows stay in the database). */
export const benchmarks: ReadonlyArray<Benchmark> = [loadProducts, handleJson, handleCsv, endToEnd, capacity, capacityCheckout, capacityBesideLoad, capacityOrders, metricsOverhead, stockDeltas, capacityNational]

/**
 * Run only when named: the soak (`npm run bench -- soak`), whose minutes of traffic would double the
 * whole suite's time; `embedded` (npm start's defaults beside PostgreSQL + Redis), about a minute a run;
 * `effect4` (issue 19: the fast lane beside in-tree Effect 4 HttpRouter and HttpApi candidates and bare node:http);
 * `capacity-instructions` (the endpoint's in-process instructions per request under valgrind, minutes);
 * `capacity-budget` (what the requests/s ratio goal allows per request on this machine: a yardstick, not a figure of the service).
 */
export const allBenchmarks: ReadonlyArray<Benchmark> = [...benchmarks, embedded, soak, effect4, capacityInstructions, capacityBudget]
