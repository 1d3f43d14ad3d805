/**
 * A persistent sorted map (a treap with path copying): what the in-process queue keeps its entries
 * and pending lists in, since Effect 4 has no RedBlackTree. Every change returns a new map sharing
 * all untouched nodes, so a queue state can be replaced in one atomic step, and an old one read on.
 * Keys are unique (`set` replaces); priorities are random, so the expected depth is logarithmic
 * whatever order keys come in (the queue's always come in increasing).
 */
import type { Order } from "effect"

interface Node<K, V> {
  readonly key: K
  readonly value: V
  readonly priority: number
  readonly size: number
  readonly left: Tree<K, V>
  readonly right: Tree<K, V>
}

type Tree<K, V> = Node<K, V> | undefined

export interface OrderedMap<K, V> {
  readonly root: Tree<K, V>
}

export interface Ops<K> {
  readonly empty: <V>() => OrderedMap<K, V>
  readonly size: <V>(map: OrderedMap<K, V>) => number
  readonly get: <V>(map: OrderedMap<K, V>, key: K) => V | undefined
  /** Inserts the key, or replaces its value. */
  readonly set: <V>(map: OrderedMap<K, V>, key: K, value: V) => OrderedMap<K, V>
  /** The same map when the key is absent. */
  readonly remove: <V>(map: OrderedMap<K, V>, key: K) => OrderedMap<K, V>
  readonly first: <V>(map: OrderedMap<K, V>) => readonly [K, V] | undefined
  /** Entries in key order. */
  readonly entries: <V>(map: OrderedMap<K, V>) => IterableIterator<readonly [K, V]>
  /** Entries with a key greater than `after`, in key order. */
  readonly greaterThan: <V>(map: OrderedMap<K, V>, after: K) => IterableIterator<readonly [K, V]>
}

const sizeOf = <K, V>(tree: Tree<K, V>): number => tree === undefined ? 0 : tree.size

const node = <K, V>(key: K, value: V, priority: number, left: Tree<K, V>, right: Tree<K, V>): Node<K, V> => ({
  key,
  value,
  priority,
  size: sizeOf(left) + sizeOf(right) + 1,
  left,
  right
})

/** All keys of `a` are below those of `b`. */
const merge = <K, V>(a: Tree<K, V>, b: Tree<K, V>): Tree<K, V> => {
  if (a === undefined) return b
  if (b === undefined) return a
  return a.priority >= b.priority
    ? node(a.key, a.value, a.priority, a.left, merge(a.right, b))
    : node(b.key, b.value, b.priority, merge(a, b.left), b.right)
}

/** In-order walk, from the smallest key above `after` when given. */
function* walk<K, V>(root: Tree<K, V>, above: ((key: K) => boolean) | undefined): Generator<readonly [K, V]> {
  const stack: Array<Node<K, V>> = []
  let current = root
  while (current !== undefined) {
    if (above === undefined || above(current.key)) {
      stack.push(current)
      current = current.left
    } else {
      current = current.right
    }
  }
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    yield [top.key, top.value]
    let next = top.right
    while (next !== undefined) {
      stack.push(next)
      next = next.left
    }
  }
}

export const make = <K>(order: Order.Order<K>): Ops<K> => {
  /** [keys below, the node of `key`, keys above]. */
  const split = <V>(tree: Tree<K, V>, key: K): readonly [Tree<K, V>, Node<K, V> | undefined, Tree<K, V>] => {
    if (tree === undefined) return [undefined, undefined, undefined]
    const c = order(key, tree.key)
    if (c === 0) return [tree.left, tree, tree.right]
    if (c < 0) {
      const [below, found, above] = split(tree.left, key)
      return [below, found, node(tree.key, tree.value, tree.priority, above, tree.right)]
    }
    const [below, found, above] = split(tree.right, key)
    return [node(tree.key, tree.value, tree.priority, tree.left, below), found, above]
  }

  const find = <V>(tree: Tree<K, V>, key: K): Node<K, V> | undefined => {
    let current = tree
    while (current !== undefined) {
      const c = order(key, current.key)
      if (c === 0) return current
      current = c < 0 ? current.left : current.right
    }
    return undefined
  }

  return {
    empty: () => ({ root: undefined }),
    size: (map) => sizeOf(map.root),
    get: (map, key) => find(map.root, key)?.value,
    set: (map, key, value) => {
      // The common case, an append after the greatest key, needs no split.
      let last = map.root
      while (last?.right !== undefined) last = last.right
      if (last === undefined || order(key, last.key) > 0) {
        return { root: merge(map.root, node(key, value, Math.random(), undefined, undefined)) }
      }
      const [below, found, above] = split(map.root, key)
      const leaf = node(key, value, found === undefined ? Math.random() : found.priority, undefined, undefined)
      return { root: merge(merge(below, leaf), above) }
    },
    remove: (map, key) => {
      if (find(map.root, key) === undefined) return map
      const [below, , above] = split(map.root, key)
      return { root: merge(below, above) }
    },
    first: (map) => {
      let current = map.root
      if (current === undefined) return undefined
      while (current.left !== undefined) current = current.left
      return [current.key, current.value]
    },
    entries: (map) => walk(map.root, undefined),
    greaterThan: (map, after) => walk(map.root, (key) => order(key, after) > 0)
  }
}
