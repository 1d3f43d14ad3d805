/**
 * When a file load was recorded, seen from outside. A file load's row is written as its publishing
 * begins, once the whole file was read, validated and spooled (docs/file-loads.md), so this is where
 * receiving ends. `isRecorded` is asked every `everyMs` from the first byte on, and after the
 * upload's answer too if it has not seen the row yet (the row exists by then). A query sees what was
 * committed when it started, so the row was written after the last poll that missed it and before
 * the one that saw it: that poll's start is returned, never later than the answer.
 */
export const recordedAt = async (
  isRecorded: () => Promise<boolean>,
  upload: Promise<{ readonly answeredAt: number }>,
  everyMs: number
): Promise<number> => {
  let answeredAt: number | undefined
  let failed = false
  upload.then((answer) => (answeredAt = answer.answeredAt), () => (failed = true))
  for (;;) {
    const started = performance.now()
    if (await isRecorded()) return answeredAt === undefined ? started : Math.min(started, answeredAt)
    if (failed) throw new Error("the upload failed before its load was recorded")
    if (answeredAt !== undefined && started - answeredAt > NOT_AFTER_ANSWER_MS) {
      throw new Error(`the load was answered but not recorded ${NOT_AFTER_ANSWER_MS} ms later`)
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}

/** A load answered 200 was recorded before its answer: its row missing this long after is a fault, not a delay. */
const NOT_AFTER_ANSWER_MS = 10_000
