import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { collectOnScrape, counter, gauge, HttpMetrics, scrape } from "../src/index.ts"

const run = crypto.randomUUID().slice(0, 8)

describe("metrics", () => {
  it.effect("a family keeps one series per label set, and the Prometheus text holds each", () =>
    Effect.gen(function*() {
      const requests = counter(`test_${run}_requests_total`, "requests", ["route"])
      requests.add({ route: "/a" })
      requests.add({ route: "/a" }, 2)
      requests.add({ route: "/b" })
      const text = yield* scrape
      expect(text).toContain(`# TYPE test_${run}_requests_total counter`)
      expect(text).toContain(`test_${run}_requests_total{route="/a"} 3`)
      expect(text).toContain(`test_${run}_requests_total{route="/b"} 1`)
    }))

  it.effect("a route recorder counts by status and observes the latency", () =>
    Effect.gen(function*() {
      const route = `/test/${run}`
      const record = HttpMetrics.routeRecorder(route, "POST")
      record(200, 0, 2)
      record(200, 0, 4)
      record(409, 0, 6)
      const text = yield* scrape
      expect(text).toContain(`http_requests_total{route="${route}",method="POST",status="200"} 2`)
      expect(text).toContain(`http_requests_total{route="${route}",method="POST",status="409"} 1`)
      expect(text).toContain(`http_request_duration_seconds_count{route="${route}",method="POST"} 3`)
      expect(text).toContain(`http_request_duration_seconds_sum{route="${route}",method="POST"} 0.012`)
    }))

  it.effect("a collector runs at each scrape while its scope is open, and not after", () =>
    Effect.gen(function*() {
      const level = gauge(`test_${run}_level`, "level")
      let reads = 0
      const scope = yield* Scope.make()
      yield* collectOnScrape(Effect.sync(() => level.set({}, ++reads))).pipe(Scope.provide(scope))
      expect(yield* scrape).toContain(`test_${run}_level 1`)
      expect(yield* scrape).toContain(`test_${run}_level 2`)
      yield* Scope.close(scope, Exit.void)
      expect(yield* scrape).toContain(`test_${run}_level 2`)
      expect(reads).toBe(2)
    }))
})
