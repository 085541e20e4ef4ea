/** Below this many entries an index neither shrinks nor compacts: small indexes stay as they are. */
const SMALL = 32;

/**
 * Ids in ascending order, each with a slot (a small non-negative integer), in two typed arrays: an entry costs 12
 * bytes and no object, so the garbage collector has nothing per entry to trace. A new id above the others (the usual
 * case) is appended; one below is put in its place by moving the higher ones up. A removed entry stays as a
 * tombstone (slot -1), stepped over by walks, until tombstones outnumber the live entries: then the arrays are
 * rebuilt without them, and given back in part when mostly empty, so each removal costs O(1) amortized.
 */
export class IdIndex {
  #ids: Float64Array;
  #slots: Int32Array;
  #length = 0;
  #dead = 0;

  constructor(capacity = 4) {
    this.#ids = new Float64Array(capacity);
    this.#slots = new Int32Array(capacity);
  }

  /** Live entries. */
  get size(): number {
    return this.#length - this.#dead;
  }

  /** The slot of `id`, -1 when it has none. */
  get(id: number): number {
    const at = this.#firstNotBelow(id);
    return at < this.#length && this.#ids[at] === id ? this.#slots[at]! : -1;
  }

  set(id: number, slot: number): void {
    const length = this.#length;
    if (length === 0 || this.#ids[length - 1]! < id) {
      if (length === this.#ids.length) this.#resize(Math.max(4, length * 2));
      this.#ids[length] = id;
      this.#slots[length] = slot;
      this.#length = length + 1;
      return;
    }
    const at = this.#firstNotBelow(id);
    if (this.#ids[at] === id) {
      if (this.#slots[at]! < 0) this.#dead -= 1;
      this.#slots[at] = slot;
      return;
    }
    if (length === this.#ids.length) this.#resize(Math.max(4, length * 2));
    this.#ids.copyWithin(at + 1, at, length);
    this.#slots.copyWithin(at + 1, at, length);
    this.#ids[at] = id;
    this.#slots[at] = slot;
    this.#length = length + 1;
  }

  /** Whether there was a live entry to remove. */
  delete(id: number): boolean {
    const at = this.#firstNotBelow(id);
    if (at === this.#length || this.#ids[at] !== id || this.#slots[at]! < 0) return false;
    this.#slots[at] = -1;
    this.#dead += 1;
    // Tombstones at the end go at once (the newest orders are the likeliest to go).
    while (this.#length > 0 && this.#slots[this.#length - 1]! < 0) {
      this.#length -= 1;
      this.#dead -= 1;
    }
    if (this.#dead > SMALL && this.#dead > this.#length - this.#dead) this.#compact();
    else if (this.#length < this.#ids.length / 4 && this.#ids.length > SMALL) this.#resize(this.#ids.length / 2);
    return true;
  }

  /**
   * Visits the live slots with ids above `after` (all when undefined), ascending, until `visit` returns false. Only
   * what is visited and the tombstones among it are walked. Do not change the index during a walk.
   */
  walkUp(after: number | undefined, visit: (slot: number) => boolean): void {
    let at = after === undefined ? 0 : this.#firstNotBelow(after);
    if (after !== undefined && this.#ids[at] === after) at += 1;
    for (; at < this.#length; at++) {
      const slot = this.#slots[at]!;
      if (slot >= 0 && !visit(slot)) return;
    }
  }

  /** As walkUp, descending from the ids below `before` (all when undefined). */
  walkDown(before: number | undefined, visit: (slot: number) => boolean): void {
    for (let at = (before === undefined ? this.#length : this.#firstNotBelow(before)) - 1; at >= 0; at--) {
      const slot = this.#slots[at]!;
      if (slot >= 0 && !visit(slot)) return;
    }
  }

  /** The position of the first id not below `id` (`length` when none). */
  #firstNotBelow(id: number): number {
    const ids = this.#ids;
    let low = 0;
    let high = this.#length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (ids[middle]! < id) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  #compact(): void {
    const ids = this.#ids;
    const slots = this.#slots;
    let kept = 0;
    for (let at = 0; at < this.#length; at++) {
      if (slots[at]! < 0) continue;
      ids[kept] = ids[at]!;
      slots[kept] = slots[at]!;
      kept += 1;
    }
    this.#length = kept;
    this.#dead = 0;
    if (kept < ids.length / 4 && ids.length > SMALL) this.#resize(Math.max(SMALL, kept * 2));
  }

  #resize(capacity: number): void {
    const ids = new Float64Array(capacity);
    const slots = new Int32Array(capacity);
    ids.set(this.#ids.subarray(0, this.#length));
    slots.set(this.#slots.subarray(0, this.#length));
    this.#ids = ids;
    this.#slots = slots;
  }
}
