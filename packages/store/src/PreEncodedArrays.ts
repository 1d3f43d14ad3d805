import { PgTypes } from "@effect/sql-pg"
import { Result } from "effect"

const { float8: FLOAT8, float8Array: FLOAT8_ARRAY, int4: INT4, int4Array: INT4_ARRAY, text: TEXT, textArray: TEXT_ARRAY } = PgTypes.OID

/** An array parameter's binary value, encoded before (at intake): written into the Bind message as it is. */
export class PreEncodedArray {
  constructor(readonly bytes: Uint8Array) {}
}

/** The catalogue's own codecs, for every value that is not pre-encoded. */
const builtins = PgTypes.makeRegistry()

const preEncodedOr = (arrayOid: number, elementOid: number): PgTypes.Codec<unknown> => ({
  encode: (value) => (value instanceof PreEncodedArray ? Result.succeed(value.bytes) : PgTypes.encode(value, arrayOid, builtins)),
  decode: (bytes) => PgTypes.decode(bytes, arrayOid, 1, builtins),
  write: (sink, value) => {
    if (!(value instanceof PreEncodedArray)) {
      return PgTypes.array(value as ReadonlyArray<unknown>, elementOid, builtins).pipe(Result.flatMap((parameter) => PgTypes.writeParameter(sink, parameter, builtins)))
    }
    sink.raw(value.bytes)
    return Result.void
  }
})

/**
 * The client's codecs: the built-in ones, except that a text[], float8[] or int4[] parameter may be
 * given already in PostgreSQL's binary array format (a `PreEncodedArray`), and is then copied into
 * the Bind message without a look at its elements. PostgreSQL's array_recv checks it all the same.
 */
export const preEncodedArrays = (): PgTypes.Registry => {
  const registry = PgTypes.makeRegistry()
  for (const [arrayOid, elementOid] of [[TEXT_ARRAY, TEXT], [FLOAT8_ARRAY, FLOAT8], [INT4_ARRAY, INT4]] as const) {
    registry.register(arrayOid, preEncodedOr(arrayOid, elementOid))
  }
  return registry
}

/** A parameter of type `arrayOid` whose value is the array's binary form. */
export const preEncodedParameter = (arrayOid: number, bytes: Uint8Array): PgTypes.Parameter => ({
  [PgTypes.ParameterTypeId]: PgTypes.ParameterTypeId,
  oid: arrayOid,
  value: new PreEncodedArray(bytes)
})
