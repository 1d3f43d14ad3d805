import { describe, expect, it } from "@effect/vitest"
import { isServerList, serversOf, tidyDocument } from "../src/index.ts"

describe("OPENAPI_SERVERS and the documents' tidying", () => {
  it("takes comma-separated absolute http(s) URLs or paths, in order, without a trailing slash", () => {
    expect(isServerList("https://api.example.com, http://qa.example.com:8080/retail/ ,/")).toBe(true)
    expect(serversOf("https://api.example.com, http://qa.example.com:8080/retail/ ,/")).toEqual([
      { url: "https://api.example.com" },
      { url: "http://qa.example.com:8080/retail" },
      { url: "/" }
    ])
    for (const bad of ["", " , ", "api.example.com", "ftp://example.com", "//example.com", "https://example.com/?q=1", "https://a b"]) {
      expect(isServerList(bad), bad).toBe(false)
    }
  })

  it("says a union member once, and a union left with one member is that member", () => {
    const ref = { $ref: "#/components/schemas/ErrorMessage" }
    expect(tidyDocument({ a: { anyOf: [ref, ref] }, b: { anyOf: [ref, { type: "string" }, ref] }, c: { anyOf: [ref, ref], description: "d" } }))
      .toEqual({ a: ref, b: { anyOf: [ref, { type: "string" }] }, c: { allOf: [ref], description: "d" } })
  })
})
