/** Deeper JSON than this is refused: no product needs more than a few levels, and depth is a cheap weapon. */
export const MAX_JSON_DEPTH = 64
