/**
 * What the threads that validate products need to encode them as columns (`@retail/store/rows`):
 * this entry imports neither the database clients nor the repositories, so that a thread started
 * from the sources (tsx) or bundled loads only the encoders.
 */
export { BinaryArrayWriter } from "./BinaryArrayWriter.ts"
export { type EncodedRows, encodeRows, rowCode, rowsTransfers } from "./EncodedRows.ts"
