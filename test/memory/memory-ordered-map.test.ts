import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OrderedMap } from "../../adapters/memory/memory-ordered-map.ts";

type Op = { set: number } | { delete: number } | { walk: number | undefined };

/** Keys mostly ascending (new ids), with some anywhere and some deletes: what the memory stores do to their indexes. */
const ops = (range: number): fc.Arbitrary<Op[]> =>
  fc.array(
    fc.oneof(
      { weight: 5, arbitrary: fc.integer({ min: 0, max: range }).map((set) => ({ set })) },
      { weight: 3, arbitrary: fc.integer({ min: 0, max: range }).map((key) => ({ delete: key })) },
      {
        weight: 1,
        arbitrary: fc.option(fc.integer({ min: -1, max: range + 1 }), { nil: undefined }).map((walk) => ({ walk })),
      },
    ),
    { maxLength: 400 },
  );

/** Runs the operations on the map and on a plain model (a Map, sorted when walked), comparing every answer. */
const agrees = (operations: Op[], prefill: number[]): void => {
  const map = OrderedMap.of<string>(prefill.map((k) => [k, `v${k}`] as const));
  const model = new Map<number, string>(prefill.map((k) => [k, `v${k}`]));
  const walked = (after: number | undefined) =>
    [...model.keys()]
      .sort((a, b) => a - b)
      .filter((k) => after === undefined || k > after)
      .map((k) => model.get(k));
  for (const op of operations) {
    if ("set" in op) {
      const value = `v${op.set}:${map.size}`;
      map.set(op.set, value);
      model.set(op.set, value);
    } else if ("delete" in op) {
      expect(map.delete(op.delete)).toBe(model.delete(op.delete));
    } else {
      expect([...map.valuesAfter(op.walk)]).toEqual(walked(op.walk));
    }
    expect(map.size).toBe(model.size);
  }
  for (const key of new Set([
    ...model.keys(),
    ...operations.flatMap((op) => ("set" in op ? [op.set] : "delete" in op ? [op.delete] : [])),
  ])) {
    expect(map.get(key)).toBe(model.get(key));
    expect(map.has(key)).toBe(model.has(key));
  }
  expect([...map.valuesAfter()]).toEqual(walked(undefined));
};

describe("the memory stores' ordered map (sorted chunks, changed in place)", () => {
  it("answers get, has, size and walks as a sorted model does, through random sets and deletes", () => {
    fc.assert(fc.property(ops(50), (operations) => agrees(operations, [])));
  });

  it("does so across chunk splits and joins (thousands of keys, removals thinning chunks out)", () => {
    const prefill = Array.from({ length: 3_000 }, (_, i) => 2 * i);
    fc.assert(
      fc.property(ops(6_000), (operations) => agrees(operations, prefill)),
      { numRuns: 30 },
    );
  });

  it("keeps order when most of a large map is removed, from the front, the back and every other key", () => {
    const map = OrderedMap.of(Array.from({ length: 10_000 }, (_, i) => [i, i] as const));
    for (let k = 0; k < 10_000; k += 2) map.delete(k);
    for (let k = 1; k < 3_000; k += 2) map.delete(k);
    for (let k = 9_999; k > 7_000; k -= 2) map.delete(k);
    const expected = Array.from({ length: 10_000 }, (_, i) => i).filter((k) => k % 2 === 1 && k >= 3_000 && k <= 7_000);
    expect([...map.valuesAfter()]).toEqual(expected);
    expect([...map.valuesAfter(5_000)]).toEqual(expected.filter((k) => k > 5_000));
    expect(map.size).toBe(expected.length);
    map.set(-5, -5);
    map.set(20_000, 20_000);
    expect([...map.valuesAfter(-10)].slice(0, 2)).toEqual([-5, 3_001]);
    expect([...map.valuesAfter(7_000)]).toEqual([20_000]);
  });
});
