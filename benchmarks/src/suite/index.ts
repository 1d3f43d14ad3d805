import type { Benchmark } from "../Benchmark.ts"
import { capacity } from "./Capacity.ts"
import { capacityCheckout } from "./CapacityCheckout.ts"
import { effect4, effect4LoadProducts } from "./Effect4.ts"
import { endToEnd } from "./EndToEnd.ts"
import { handleCsv } from "./HandleCsv.ts"
import { handleJson } from "./HandleJson.ts"
import { loadProducts } from "./LoadProducts.ts"
import { soak } from "./Soak.ts"

/** Every benchmark of `npm run bench`, in the order they run. */
export const benchmarks: ReadonlyArray<Benchmark> = [loadProducts, handleJson, handleCsv, endToEnd, capacity, capacityCheckout]

/**
 * Run only when named (`npm run bench -- soak`): minutes of traffic would double the whole suite's time;
 * `effect4` and `effect4-load-products` (issue 19's measurement before the move) install its own Effect 4 folder first.
 */
export const allBenchmarks: ReadonlyArray<Benchmark> = [...benchmarks, soak, effect4, effect4LoadProducts]
