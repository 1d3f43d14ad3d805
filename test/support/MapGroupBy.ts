// vitest 5 wants Node.js 22.12+; the project runs on Node.js 20 (package.json engines, flake.nix,
// Dockerfile), where Map.groupBy is missing. vitest's reporter calls it to print a failed test's
// errors, so without it every failure ends the run in a TypeError instead of the failure's message
// (and without the summary line CI reads). Loaded by the vitest configs, in vitest's own process.
declare global {
  interface MapConstructor {
    groupBy<K, T>(items: Iterable<T>, keyOf: (item: T, index: number) => K): Map<K, Array<T>>
  }
}

if (typeof (Map as Partial<MapConstructor>).groupBy !== "function") {
  Object.defineProperty(Map, "groupBy", {
    configurable: true,
    writable: true,
    value: <K, T>(items: Iterable<T>, keyOf: (item: T, index: number) => K): Map<K, Array<T>> => {
      const groups = new Map<K, Array<T>>()
      let index = 0
      for (const item of items) {
        const key = keyOf(item, index++)
        const group = groups.get(key)
        if (group === undefined) groups.set(key, [item])
        else group.push(item)
      }
      return groups
    }
  })
}

export {}
