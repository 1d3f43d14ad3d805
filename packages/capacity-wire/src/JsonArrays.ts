/**
 * `array.map(f)` for arrays that end up in an answer's JSON. Optimised code allocates `map`'s
 * result at its full length up front, a holey array, which JSON.stringify writes element by
 * element through its generic lookup path; pushing keeps the array packed (JSON.stringify's fast
 * path). Same elements, same order, so the same text.
 */
export const mapForJson = <A, B>(array: ReadonlyArray<A>, f: (value: A, index: number) => B): Array<B> => {
  const out: Array<B> = []
  for (let i = 0; i < array.length; i++) out.push(f(array[i] as A, i))
  return out
}
