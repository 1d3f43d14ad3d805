import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { LoadNotFound, MessageError, OrderConflict, TooManyRequests } from "../src/index.ts"

class Teapot extends MessageError<Teapot>()("Teapot", 418, "Short and stout") {}

describe("MessageError (the `{ message }` error classes of the contract)", () => {
  it("encodes to exactly the spec's ErrorMessage, and decodes back to the class", () => {
    const encoded = Schema.encodeSync(LoadNotFound)(new LoadNotFound({ message: "no such load" }))
    expect(JSON.stringify(encoded)).toBe("{\"message\":\"no such load\"}")
    const decoded = Schema.decodeUnknownSync(TooManyRequests)({ message: "slow down" })
    expect(decoded).toBeInstanceOf(TooManyRequests)
    expect(decoded.message).toBe("slow down")
    expect(decoded._tag).toBe("TooManyRequests")
  })

  it("an endpoint's union of them encodes each by its class, without a tag", () => {
    const errors = Schema.Union([LoadNotFound, TooManyRequests, OrderConflict])
    expect(Schema.encodeSync(errors)(new TooManyRequests({ message: "slow down" }))).toEqual({ message: "slow down" })
    expect(Schema.encodeSync(errors)(new OrderConflict({ message: "m", orderId: "o", fields: ["units"] })))
      .toEqual({ message: "m", orderId: "o", fields: ["units"] })
    expect(new OrderConflict({ message: "m", orderId: "o", fields: [] })._tag).toBe("OrderConflict")
  })

  it("carries its status and description as annotations, and is a yieldable error", () => {
    expect(Teapot.ast.annotations).toMatchObject({ httpApiStatus: 418, description: "Short and stout" })
    const error = new Teapot({ message: "brewing" })
    expect(error).toBeInstanceOf(Error)
    expect(error._tag).toBe("Teapot")
  })
})
