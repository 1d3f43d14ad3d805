import { describe, expect, it } from "@effect/vitest"
import { RedisStreamQueue } from "../src/index.ts"

describe("RedisStreamQueue.describeDurability", () => {
  it("a Redis without its append-only file is not durable, and says how to fix it", () => {
    const durability = RedisStreamQueue.describeDurability("no", "everysec")
    expect(durability.durable).toBe(false)
    expect(durability.description).toMatch(/appendonly no.*set appendonly yes/)
  })

  it("with the append-only file it is durable, and says what each fsync policy risks", () => {
    expect(RedisStreamQueue.describeDurability("yes", "always")).toEqual({ durable: true, description: expect.stringMatching(/nothing accepted is lost/) })
    expect(RedisStreamQueue.describeDurability("yes", "everysec").description).toMatch(/machine crash up to 1 s/)
    expect(RedisStreamQueue.describeDurability("yes", "no").description).toMatch(/fsync left to the OS/)
  })
})
