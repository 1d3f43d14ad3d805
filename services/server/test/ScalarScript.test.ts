import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { scalarScriptFile, StringLiteralDecoder } from "../src/ScalarScript.ts"

describe("StringLiteralDecoder (Scalar's script decoded as it streams)", () => {
  it("decodes a JSON string literal given in pieces of any size, surrogate pairs and escapes split across pieces", () => {
    const value = "a\"b\\c\nd\u2028e😀f</script>é" + "x".repeat(50)
    const file = `/* x */export const javascript=${JSON.stringify(value).replace("😀", "\\ud83d\\ude00")};\n//# tail "quoted"`
    for (const size of [1, 2, 3, 7, 64, file.length]) {
      const decoder = new StringLiteralDecoder()
      const pieces: Array<string> = []
      for (let at = 0; at < file.length && !decoder.done; at += size) pieces.push(decoder.push(file.slice(at, at + size)))
      expect(pieces.every((piece) => Buffer.from(piece, "utf8").toString("utf8") === piece), `size ${size}`).toBe(true)
      expect(pieces.join(""), `size ${size}`).toBe(value)
      expect(decoder.done).toBe(true)
    }
  })

  it("the installed effect's script file is still one such literal", () => {
    expect(readFileSync(scalarScriptFile(), "utf8")).toMatch(/export const javascript="/)
  })
})
