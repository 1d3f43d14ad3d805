import { describe, expect, it } from "@effect/vitest"
import { type Config, ConfigProvider, Effect } from "effect"
import { integer, number, positiveInteger } from "../src/index.ts"

const read = <A>(config: Config.Config<A>, env: Record<string, string>) =>
  Effect.gen(function*() {
    return yield* config
  }).pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))), Effect.result, Effect.runSync)

const message = (result: { readonly _tag: string }): string => JSON.stringify(result)

describe("settings", () => {
  it("takes the fallback when the variable is unset, and the value when it is in range", () => {
    expect(read(positiveInteger("WORKERS", 2), {})).toMatchObject({ _tag: "Success", success: 2 })
    expect(read(positiveInteger("WORKERS", 2), { WORKERS: "7" })).toMatchObject({ _tag: "Success", success: 7 })
    expect(read(integer("PORT", 8080, { min: 0, max: 65535 }), { PORT: "0" })).toMatchObject({ _tag: "Success", success: 0 })
    expect(read(number("RATE", 50, { min: 0 }), { RATE: "0.5" })).toMatchObject({ _tag: "Success", success: 0.5 })
  })

  it("names the variable and its range when a value is out of it or not a whole number", () => {
    expect(message(read(positiveInteger("WORKERS", 2), { WORKERS: "0" }))).toContain("WORKERS must be an integer of at least 1")
    expect(message(read(positiveInteger("WORKERS", 2), { WORKERS: "1.5" }))).toContain("WORKERS")
    const port = read(integer("PORT", 8080, { min: 0, max: 65535, note: "0: any free port" }), { PORT: "70000" })
    expect(message(port)).toContain("PORT must be an integer from 0 to 65535 (0: any free port)")
    expect(message(read(number("RATE", 50, { min: 0 }), { RATE: "-1" }))).toContain("RATE must be a number of at least 0")
  })
})
