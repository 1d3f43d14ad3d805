import { Layer } from "effect"
import { CredentialRateLimiter } from "./CredentialRateLimiter.ts"
import { FileLoadSlots } from "./FileLoadSlots.ts"
import { LimitsConfig } from "./LimitsConfig.ts"

// Module constants, so that every layer providing them shares one instance per build: the fast
// lane and the administration endpoints draw from the same bucket of an API key.
export const RateLimiterLive = CredentialRateLimiter.layer.pipe(Layer.provide(LimitsConfig.layer))
export const FileLoadSlotsLive = FileLoadSlots.layer.pipe(Layer.provide(LimitsConfig.layer))
/** The internal listener's own slots (INTERNAL_FILE_LOADS_PER_COMPANY), apart from FileLoadSlotsLive. */
export const InternalFileLoadSlotsLive = FileLoadSlots.internal.pipe(Layer.provide(LimitsConfig.layer))
