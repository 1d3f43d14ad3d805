import { Option } from "effect"
import { Database } from "../src/index.ts"
import { storeContract } from "./contract.ts"

storeContract("store on embedded PGlite (in memory)", { url: Option.none(), dataDir: Database.IN_MEMORY, poolSize: 4 })
