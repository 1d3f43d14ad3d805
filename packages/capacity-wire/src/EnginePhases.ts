/** The marks a traced capacity request's engine passes, in order (a request refused or answered early passes fewer). */
export type EnginePhase = "engine.started" | "decoded" | "evaluated" | "answered"

/**
 * Handed to the engine only for a request whose span is sampled (services/server's FastLaneTracing):
 * each mark reads its clock there. A request not sampled passes no hook, and the engine's
 * `phases?.mark(…)` are then a check of `undefined`: no clock read, no allocation.
 */
export interface EnginePhases {
  readonly mark: (phase: EnginePhase) => void
}
