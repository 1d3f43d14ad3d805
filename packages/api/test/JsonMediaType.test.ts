import { describe, expect, it } from "@effect/vitest"
import { isJsonContentType } from "../src/index.ts"

describe("isJsonContentType (one rule for both services)", () => {
  it("accepts application/json and +json types, in any case, with at most charset=utf-8", () => {
    for (const header of ["application/json", "Application/JSON", "application/json; charset=utf-8", "application/json;charset=\"UTF-8\"", "application/vnd.retail+json", "application/problem+json; charset=utf-8"]) {
      expect(isJsonContentType(header), header).toBe(true)
    }
  })

  it("refuses other types, other charsets and other parameters (the bodies are read as UTF-8 only)", () => {
    for (const header of [undefined, "", "text/plain", "text/json", "application/jsonx", "application/json; charset=latin1", "application/vnd.retail+json; charset=iso-8859-1", "application/json; boundary=x", "multipart/form-data"]) {
      expect(isJsonContentType(header), String(header)).toBe(false)
    }
  })
})
