import { defineConfig } from "vitest/config"
import "./test/support/MapGroupBy.ts"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "services/*/test/**/*.test.ts", "test/**/*.test.ts", "benchmarks/test/**/*.test.ts"],
    // The fault suite starts and kills servers of its own for minutes: `npm run test:faults` (vitest.faults.config.ts).
    exclude: ["**/node_modules/**", "test/faults/**"],
    globalSetup: ["test/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Vitest's default on 2 cores is one worker (cores - 1), which ran the files one at a time;
    // most of them wait on servers and databases. With two, CI's 811 tests took 300-320 s on its
    // 2-core machine; with one, 500 s for the 737 that run without DATABASE_URL and REDIS_URL.
    maxWorkers: 2,
    reporters: ["default", "./test/support/SummaryReporter.ts"],
    sequence: { concurrent: false }
  }
})
