import { describe, it } from "@effect/vitest"
import { Option } from "effect"
import { storeContract } from "./contract.ts"

const url = process.env["DATABASE_URL"]

if (url !== undefined && url !== "") {
  storeContract("store on PostgreSQL", { url: Option.some(url), dataDir: "", poolSize: 4 })
} else {
  describe.skip("store on PostgreSQL (set DATABASE_URL)", () => {
    it("needs DATABASE_URL", () => {})
  })
}
