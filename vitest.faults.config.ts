import { defineConfig } from "vitest/config"
import "./test/support/MapGroupBy.ts"

/** The fault suite (`npm run test:faults`): real Redis and PostgreSQL processes started, stopped and killed by the tests. */
export default defineConfig({
  test: {
    include: ["test/faults/**/*.test.ts"],
    globalSetup: ["test/faults/globalSetup.ts"],
    testTimeout: 240_000,
    hookTimeout: 240_000,
    pool: "forks",
    // Each file runs servers of its own; one file at a time keeps a 2-core machine responsive.
    fileParallelism: false,
    reporters: ["default", "./test/support/SummaryReporter.ts"],
    sequence: { concurrent: false }
  }
})
