interface Node<V> {
  readonly key: number;
  readonly value: V;
  /** Heap order on random priorities keeps the expected depth logarithmic whatever order keys arrive in. */
  readonly priority: number;
  readonly size: number;
  readonly left: Node<V> | undefined;
  readonly right: Node<V> | undefined;
}

const sizeOf = <V>(node: Node<V> | undefined): number => node?.size ?? 0;

const nodeOf = <V>(base: Pick<Node<V>, "key" | "value" | "priority">, left: Node<V> | undefined, right: Node<V> | undefined): Node<V> => ({
  key: base.key,
  value: base.value,
  priority: base.priority,
  size: sizeOf(left) + sizeOf(right) + 1,
  left,
  right,
});

/** Splits a tree without `key` into the keys below it and the keys above it. */
const split = <V>(node: Node<V> | undefined, key: number): [Node<V> | undefined, Node<V> | undefined] => {
  if (!node) return [undefined, undefined];
  if (node.key < key) {
    const [below, above] = split(node.right, key);
    return [nodeOf(node, node.left, below), above];
  }
  const [below, above] = split(node.left, key);
  return [below, nodeOf(node, above, node.right)];
};

/** Every key of `low` is below every key of `high`. */
const merge = <V>(low: Node<V> | undefined, high: Node<V> | undefined): Node<V> | undefined => {
  if (!low) return high;
  if (!high) return low;
  return low.priority > high.priority ? nodeOf(low, low.left, merge(low.right, high)) : nodeOf(high, merge(low, high.left), high.right);
};

const inserted = <V>(node: Node<V> | undefined, entry: Node<V>): Node<V> => {
  if (!node) return entry;
  if (entry.priority > node.priority) {
    const [below, above] = split(node, entry.key);
    return nodeOf(entry, below, above);
  }
  return entry.key < node.key ? nodeOf(node, inserted(node.left, entry), node.right) : nodeOf(node, node.left, inserted(node.right, entry));
};

const replaced = <V>(node: Node<V>, key: number, value: V): Node<V> => {
  if (key === node.key) return nodeOf({ ...node, value }, node.left, node.right);
  return key < node.key
    ? nodeOf(node, replaced(node.left as Node<V>, key, value), node.right)
    : nodeOf(node, node.left, replaced(node.right as Node<V>, key, value));
};

const removed = <V>(node: Node<V> | undefined, key: number): Node<V> | undefined => {
  if (!node) return undefined;
  if (key === node.key) return merge(node.left, node.right);
  return key < node.key ? nodeOf(node, removed(node.left, key), node.right) : nodeOf(node, node.left, removed(node.right, key));
};

/**
 * An immutable map from numbers to values in ascending key order (a persistent treap): `set` and `delete` return a
 * new map sharing all but O(log n) nodes with this one, so a map once handed out is a snapshot that later changes
 * never reach, and a change costs O(log n) whatever the size.
 */
export class OrderedMap<V> {
  static readonly empty: OrderedMap<never> = new OrderedMap(undefined);

  readonly #root: Node<V> | undefined;
  private constructor(root: Node<V> | undefined) {
    this.#root = root;
  }

  static of<V>(entries: Iterable<readonly [number, V]>): OrderedMap<V> {
    let map: OrderedMap<V> = OrderedMap.empty;
    for (const [key, value] of entries) map = map.set(key, value);
    return map;
  }

  get size(): number {
    return sizeOf(this.#root);
  }

  get(key: number): V | undefined {
    let node = this.#root;
    while (node && node.key !== key) node = key < node.key ? node.left : node.right;
    return node?.value;
  }

  has(key: number): boolean {
    let node = this.#root;
    while (node && node.key !== key) node = key < node.key ? node.left : node.right;
    return node !== undefined;
  }

  set(key: number, value: V): OrderedMap<V> {
    if (this.#root && this.has(key)) return new OrderedMap(replaced(this.#root, key, value));
    return new OrderedMap(inserted(this.#root, { key, value, priority: Math.random(), size: 1, left: undefined, right: undefined }));
  }

  delete(key: number): OrderedMap<V> {
    return this.has(key) ? new OrderedMap(removed(this.#root, key)) : this;
  }

  /** The values whose keys are above `after` (all when undefined), ascending; only the part walked is visited. */
  *valuesAfter(after?: number): Generator<V, void, undefined> {
    const path: Node<V>[] = [];
    let node = this.#root;
    for (;;) {
      while (node) {
        if (after === undefined || node.key > after) {
          path.push(node);
          node = node.left;
        } else {
          node = node.right;
        }
      }
      const next = path.pop();
      if (!next) return;
      yield next.value;
      node = next.right;
    }
  }
}
