import { OrderedMap } from "../../adapters/memory/memory-ordered-map.ts";

/** What built-ins did for the code under test: the copies and walks a per-item cost shows up in. */
export interface Work {
  /** Date objects constructed (every copied date is one). */
  dates: number;
  /** Values handed to structuredClone, an array counting its length. */
  cloned: number;
  /** Elements walked by array and Map iterators (spreads, for-of, Array.from, destructuring) and by the memory adapters' ordered maps. */
  walked: number;
  /** Elements of arrays sorted. */
  sorted: number;
  /** Map lookups (get, has): a store that finds out whether an entry is still there by looking it up shows each one it looks at here. */
  lookedUp: number;
}

/**
 * Runs `action` with Date, structuredClone, Array.prototype.sort, the array and Map iterators, Map lookups and
 * OrderedMap's walks (valuesAfter, valuesBefore) counting, and restores them afterwards. Counts, never times: what it reports is the same on any machine.
 */
export const workOf = async (action: () => Promise<unknown>): Promise<Work> => {
  const work: Work = { dates: 0, cloned: 0, walked: 0, sorted: 0, lookedUp: 0 };
  const RealDate = globalThis.Date;
  const realClone = globalThis.structuredClone;
  const realSort = Array.prototype.sort;
  const realValuesAfter = OrderedMap.prototype.valuesAfter;
  const realValuesBefore = OrderedMap.prototype.valuesBefore;
  const realGet = Map.prototype.get;
  const realHas = Map.prototype.has;
  const counted = <T>(iterator: Iterator<T>): IterableIterator<T> => ({
    next() {
      const step = iterator.next();
      if (!step.done) work.walked += 1;
      return step;
    },
    [Symbol.iterator]() {
      return this;
    },
  });
  const iterators = [
    [Array.prototype, Symbol.iterator],
    [Array.prototype, "values"],
    [Map.prototype, Symbol.iterator],
    [Map.prototype, "values"],
    [Map.prototype, "entries"],
    [Map.prototype, "keys"],
  ] as const;
  const realIterators = iterators.map(
    ([proto, key]) => (proto as unknown as Record<PropertyKey, () => Iterator<unknown>>)[key]!,
  );

  globalThis.Date = class CountingDate extends RealDate {
    constructor(...args: unknown[]) {
      super(...(args as []));
      work.dates += 1;
    }
  } as DateConstructor;
  globalThis.structuredClone = (value, options) => {
    work.cloned += Array.isArray(value) ? value.length : 1;
    return realClone(value, options);
  };
  Array.prototype.sort = function <T>(this: T[], compare?: (a: T, b: T) => number): T[] {
    work.sorted += this.length;
    return realSort.call(this, compare) as T[];
  };
  OrderedMap.prototype.valuesAfter = function (this: OrderedMap<unknown>, after?: number) {
    return counted(realValuesAfter.call(this, after)) as Generator<never, void, undefined>;
  };
  OrderedMap.prototype.valuesBefore = function (this: OrderedMap<unknown>, before?: number) {
    return counted(realValuesBefore.call(this, before)) as Generator<never, void, undefined>;
  };
  Map.prototype.get = function (this: Map<unknown, unknown>, key: unknown) {
    work.lookedUp += 1;
    return realGet.call(this, key);
  };
  Map.prototype.has = function (this: Map<unknown, unknown>, key: unknown) {
    work.lookedUp += 1;
    return realHas.call(this, key);
  };
  iterators.forEach(([proto, key], i) => {
    const real = realIterators[i]!;
    (proto as unknown as Record<PropertyKey, unknown>)[key] = function (this: unknown) {
      return counted(real.call(this));
    };
  });
  try {
    await action();
  } finally {
    globalThis.Date = RealDate;
    globalThis.structuredClone = realClone;
    Array.prototype.sort = realSort;
    OrderedMap.prototype.valuesAfter = realValuesAfter;
    OrderedMap.prototype.valuesBefore = realValuesBefore;
    Map.prototype.get = realGet;
    Map.prototype.has = realHas;
    iterators.forEach(([proto, key], i) => {
      (proto as unknown as Record<PropertyKey, unknown>)[key] = realIterators[i];
    });
  }
  return work;
};
