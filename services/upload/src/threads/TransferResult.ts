import { move, transferableSymbol, valueSymbol } from "piscina"

/** A thread's result with `buffers` moved to the requesting thread instead of copied (piscina's transfer list). */
export const transferResult = <A extends object>(result: A, buffers: ReadonlyArray<ArrayBuffer>) =>
  move({ [transferableSymbol]: buffers, [valueSymbol]: result })
