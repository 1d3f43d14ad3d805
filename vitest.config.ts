import { defineConfig } from "vitest/config"
import "./test/support/MapGroupBy.ts"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "services/*/test/**/*.test.ts", "test/**/*.test.ts", "benchmarks/test/**/*.test.ts"],
    // The fault suite starts and kills servers of its own for minutes: `npm run test:faults` (vitest.faults.config.ts).
    exclude: ["**/node_modules/**", "test/faults/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    reporters: ["default", "./test/support/SummaryReporter.ts"],
    sequence: { concurrent: false }
  }
})
