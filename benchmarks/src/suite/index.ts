import type { Benchmark } from "../Benchmark.ts"
import { capacity } from "./Capacity.ts"
import { capacityCheckout } from "./CapacityCheckout.ts"
import { effect4, effect4LoadProducts } from "./Effect4.ts"
import { embedded } from "./Embedded.ts"
import { endToEnd } from "./EndToEnd.ts"
import { handleCsv } from "./HandleCsv.ts"
import { handleJson } from "./HandleJson.ts"
import { loadProducts } from "./LoadProducts.ts"
import { soak } from "./Soak.ts"

/** Every benchmark of `npm run bench`, in the order they run. */
export const benchmarks: ReadonlyArray<Benchmark> = [loadProducts, handleJson, handleCsv, endToEnd, capacity, capacityCheckout]

/**
 * Run only when named: the soak (`npm run bench -- soak`), whose minutes of traffic would double the
 * whole suite's time; `embedded` (npm start's defaults beside PostgreSQL + Redis), about a minute a run;
 * `effect4` and `effect4-load-products` (issue 19's measurement before the move), which install their own Effect 4 folder first.
 */
export const allBenchmarks: ReadonlyArray<Benchmark> = [...benchmarks, embedded, soak, effect4, effect4LoadProducts]
