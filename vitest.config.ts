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
    // Vitest's default on 2 cores is one worker (cores - 1); most files wait on servers and
    // databases, so two halve the suite's time on CI's 2-core machine (measured: 500 s to 300 s).
    maxWorkers: 2,
    reporters: ["default", "./test/support/SummaryReporter.ts"],
    sequence: { concurrent: false }
  }
})
