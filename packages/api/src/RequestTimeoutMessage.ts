/**
 * RequestTimeout's message for a body that stopped arriving (`idle`) or arrived under the minimum
 * rate (`tooSlow`) over UPLOAD_IDLE_TIMEOUT_MS: the server's body watchdog and the consumptions' fast
 * lane answer 408 with it alike.
 */
export const requestTimeoutMessage = (verdict: "idle" | "tooSlow", idleTimeoutMs: number, minBytesPerSecond: number): string =>
  verdict === "idle"
    ? `The request body stopped arriving: nothing for ${idleTimeoutMs} ms (UPLOAD_IDLE_TIMEOUT_MS). Nothing was published.`
    : `The request body arrived slower than ${minBytesPerSecond} bytes/s over ${idleTimeoutMs} ms (UPLOAD_MIN_BYTES_PER_SECOND). Nothing was published.`
