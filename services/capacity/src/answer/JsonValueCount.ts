import { PayloadTooLarge } from "@retail/api"
import { measureJson } from "@retail/ingest"
import { Buffer } from "node:buffer"

/**
 * REQUEST_MAX_VALUES on a body's text: the 413 of a body with more JSON values, or undefined. A
 * text no longer than the limit cannot hold more values than it has characters, so it is not counted.
 */
export const tooManyValues = (text: string, requestMaxValues: number): PayloadTooLarge | undefined => {
  if (text.length <= requestMaxValues) return undefined
  const size = measureJson(Buffer.from(text, "utf8"), requestMaxValues, Number.POSITIVE_INFINITY)
  return size._tag === "TooManyValues"
    ? new PayloadTooLarge({
      message: `The request body has more than ${requestMaxValues} JSON values (REQUEST_MAX_VALUES); ` +
        `the value at byte ${size.offset} is one too many`
    })
    : undefined
}
