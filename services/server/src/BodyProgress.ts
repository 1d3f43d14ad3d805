/** How a request body must keep arriving (UPLOAD_IDLE_TIMEOUT_MS, UPLOAD_MIN_BYTES_PER_SECOND). */
export interface BodyRule {
  /** Longest time without a byte from the client; also the length of the windows the rate is measured over. */
  readonly idleTimeoutMs: number
  /** Least average rate over a window; 0: no minimum. */
  readonly minBytesPerSecond: number
}

/** One look at a request's connection. */
export interface BodySample {
  readonly now: number
  /** Bytes read from the connection so far (node's socket.bytesRead): only its growth counts. */
  readonly bytesRead: number
  /**
   * The server itself is not reading (its buffers are full while it validates or publishes): the
   * client may be blocked by TCP flow control, so no stall or slowness can be blamed on it.
   */
  readonly serverBusy: boolean
}

export type BodyVerdict = "receiving" | "idle" | "tooSlow"

/**
 * Judges a body's progress from samples taken every so often: `idle` when no byte arrived for
 * `idleTimeoutMs` while the server was ready to read; `tooSlow` when a window of `idleTimeoutMs`
 * in which the server was never seen busy brought fewer than `minBytesPerSecond`. A sample where
 * the server is busy restarts the idle clock and voids the window.
 */
export const makeBodyProgress = (rule: BodyRule, start: BodySample) => {
  let lastBytes = start.bytesRead
  let lastProgressAt = start.now
  let windowStart = start.now
  let windowBytes = 0
  let windowCounts = !start.serverBusy
  return (sample: BodySample): BodyVerdict => {
    if (sample.bytesRead > lastBytes) {
      windowBytes += sample.bytesRead - lastBytes
      lastBytes = sample.bytesRead
      lastProgressAt = sample.now
    } else if (sample.serverBusy) {
      lastProgressAt = sample.now
    }
    if (sample.serverBusy) windowCounts = false
    if (sample.now - lastProgressAt >= rule.idleTimeoutMs) return "idle"
    const elapsed = sample.now - windowStart
    if (elapsed < rule.idleTimeoutMs) return "receiving"
    const slow = rule.minBytesPerSecond > 0 && windowCounts && windowBytes * 1000 < rule.minBytesPerSecond * elapsed
    windowStart = sample.now
    windowBytes = 0
    windowCounts = !sample.serverBusy
    return slow ? "tooSlow" : "receiving"
  }
}
