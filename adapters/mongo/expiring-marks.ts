/**
 * Keys remembered until a time each, at most `capacity` of them: when full, keys whose time has passed are forgotten
 * first, then the oldest. A mark is a hint that saves a round trip, never the truth: forgetting one costs only that.
 */
export class ExpiringMarks {
  readonly #until = new Map<string, number>();
  readonly capacity: number;
  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get size(): number {
    return this.#until.size;
  }

  has(key: string): boolean {
    return this.#until.has(key);
  }

  add(key: string, until: Date, now: Date): void {
    if (!this.#until.has(key) && this.#until.size >= this.capacity) {
      for (const [marked, ends] of this.#until) if (ends <= now.getTime()) this.#until.delete(marked);
      for (const marked of this.#until.keys()) {
        if (this.#until.size < this.capacity) break;
        this.#until.delete(marked);
      }
    }
    this.#until.set(key, until.getTime());
  }

  delete(key: string): void {
    this.#until.delete(key);
  }
}
