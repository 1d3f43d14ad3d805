import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { LoadNotFound, MessageError, TooManyRequests } from "../src/index.ts"

class Teapot extends MessageError<Teapot>()("Teapot", 418, "Short and stout") {}

describe("MessageError (the `{ message }` error classes of the contract)", () => {
  it("encodes to the spec's ErrorMessage plus the tag, and decodes back to the class", () => {
    const encoded = Schema.encodeSync(LoadNotFound)(new LoadNotFound({ message: "no such load" }))
    expect(JSON.stringify(encoded)).toBe("{\"_tag\":\"LoadNotFound\",\"message\":\"no such load\"}")
    const decoded = Schema.decodeUnknownSync(TooManyRequests)({ _tag: "TooManyRequests", message: "slow down" })
    expect(decoded).toBeInstanceOf(TooManyRequests)
    expect(decoded.message).toBe("slow down")
  })

  it("carries its status and description as annotations, and is a yieldable error", () => {
    expect(Teapot.ast.annotations).toMatchObject({ httpApiStatus: 418, description: "Short and stout" })
    const error = new Teapot({ message: "brewing" })
    expect(error).toBeInstanceOf(Error)
    expect(error._tag).toBe("Teapot")
  })
})
