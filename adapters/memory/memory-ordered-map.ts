/** Keys per chunk: a chunk splits in two above twice this, and joins a neighbour below a quarter of it. */
const CHUNK = 256;

/** The index of the first key of ascending `keys` that is not below `key` (`keys.length` when none). */
const firstNotBelow = (keys: readonly number[], key: number): number => {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle]! < key) low = middle + 1;
    else high = middle;
  }
  return low;
};

/**
 * A map from numbers to values in ascending key order, changed in place: the keys in sorted chunks of a few hundred
 * (a sorted list of sorted arrays), each with its values alongside. Finding a key is two bisections; adding or
 * removing one moves at most a chunk's entries (adding the highest key, the usual case for new ids, is a push); a
 * walk from any key visits only what it yields. An entry costs two array slots, not a node of its own, and a change
 * allocates nothing but an occasional chunk. Walks are synchronous: change the map only after a walk is done.
 */
export class OrderedMap<V> {
  /** Non-empty chunks of ascending keys; every key of a chunk is below every key of the next. */
  #keys: number[][] = [];
  /** The values, chunk for chunk and place for place with `#keys`. */
  #values: V[][] = [];
  #size = 0;

  static of<V>(entries: Iterable<readonly [number, V]>): OrderedMap<V> {
    const map = new OrderedMap<V>();
    for (const [key, value] of entries) map.set(key, value);
    return map;
  }

  get size(): number {
    return this.#size;
  }

  get(key: number): V | undefined {
    const at = this.#find(key);
    return at.found ? this.#values[at.chunk]![at.index] : undefined;
  }

  has(key: number): boolean {
    return this.#find(key).found;
  }

  set(key: number, value: V): void {
    if (this.#size === 0) {
      this.#keys = [[key]];
      this.#values = [[value]];
      this.#size = 1;
      return;
    }
    const { chunk, index, found } = this.#find(key);
    const keys = this.#keys[chunk]!;
    const values = this.#values[chunk]!;
    if (found) {
      values[index] = value;
      return;
    }
    if (index === keys.length) {
      keys.push(key);
      values.push(value);
    } else {
      keys.splice(index, 0, key);
      values.splice(index, 0, value);
    }
    this.#size += 1;
    if (keys.length > 2 * CHUNK) {
      this.#keys.splice(chunk + 1, 0, keys.splice(CHUNK));
      this.#values.splice(chunk + 1, 0, values.splice(CHUNK));
    }
  }

  /** Whether there was an entry to remove. */
  delete(key: number): boolean {
    const { chunk, index, found } = this.#find(key);
    if (!found) return false;
    const keys = this.#keys[chunk]!;
    keys.splice(index, 1);
    this.#values[chunk]!.splice(index, 1);
    this.#size -= 1;
    if (keys.length === 0) {
      this.#keys.splice(chunk, 1);
      this.#values.splice(chunk, 1);
    } else if (keys.length < CHUNK / 4 && this.#keys.length > 1) {
      this.#join(chunk === 0 ? 0 : chunk - 1);
    }
    return true;
  }

  /** The values whose keys are above `after` (all when undefined), ascending; only the part walked is visited. */
  *valuesAfter(after?: number): Generator<V, void, undefined> {
    let chunk = 0;
    let index = 0;
    if (after !== undefined && this.#size > 0) {
      chunk = this.#chunkOf(after);
      const keys = this.#keys[chunk]!;
      index = firstNotBelow(keys, after);
      if (keys[index] === after) index += 1;
    }
    for (; chunk < this.#values.length; chunk++, index = 0) {
      const values = this.#values[chunk]!;
      for (; index < values.length; index++) yield values[index]!;
    }
  }

  /** The values with keys below `before` (all when undefined), in descending key order. */
  *valuesBefore(before?: number): Generator<V, void, undefined> {
    let chunk = this.#values.length - 1;
    let index = chunk >= 0 ? this.#values[chunk]!.length - 1 : -1;
    if (before !== undefined && this.#size > 0) {
      chunk = this.#chunkOf(before);
      index = firstNotBelow(this.#keys[chunk]!, before) - 1;
    }
    for (; chunk >= 0; chunk--, index = chunk >= 0 ? this.#values[chunk]!.length - 1 : -1) {
      const values = this.#values[chunk]!;
      for (; index >= 0; index--) yield values[index]!;
    }
  }

  /** The chunk that holds `key` or would: the first whose highest key is not below it, else the last. */
  #chunkOf(key: number): number {
    const chunks = this.#keys;
    let low = 0;
    let high = chunks.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const keys = chunks[middle]!;
      if (keys[keys.length - 1]! < key) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  #find(key: number): { chunk: number; index: number; found: boolean } {
    if (this.#size === 0) return { chunk: 0, index: 0, found: false };
    const chunk = this.#chunkOf(key);
    const index = firstNotBelow(this.#keys[chunk]!, key);
    return { chunk, index, found: this.#keys[chunk]![index] === key };
  }

  /** Joins chunk `low` and the next into one, split again in halves when that is too long. */
  #join(low: number): void {
    const keys = this.#keys[low]!.concat(this.#keys[low + 1]!);
    const values = this.#values[low]!.concat(this.#values[low + 1]!);
    if (keys.length > 2 * CHUNK) {
      const half = keys.length >>> 1;
      this.#keys.splice(low, 2, keys.slice(0, half), keys.slice(half));
      this.#values.splice(low, 2, values.slice(0, half), values.slice(half));
    } else {
      this.#keys.splice(low, 2, keys);
      this.#values.splice(low, 2, values);
    }
  }
}
