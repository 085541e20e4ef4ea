import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IdIndex } from "../../adapters/memory/memory-id-index.ts";

type Op =
  { set: number } | { delete: number } | { thin: number } | { up: number | undefined } | { down: number | undefined };

/** Ids mostly ascending (new orders), some anywhere, deletes one by one and in bulk: what the memory order store does to its indexes. */
const ops = (range: number): fc.Arbitrary<Op[]> => {
  const bound = fc.option(fc.integer({ min: -1, max: range + 1 }), { nil: undefined });
  return fc.array(
    fc.oneof(
      { weight: 5, arbitrary: fc.integer({ min: 0, max: range }).map((set) => ({ set })) },
      { weight: 4, arbitrary: fc.integer({ min: 0, max: range }).map((id) => ({ delete: id })) },
      { weight: 1, arbitrary: bound.map((up) => ({ up })) },
      { weight: 1, arbitrary: bound.map((down) => ({ down })) },
      { weight: 1, arbitrary: fc.integer({ min: 2, max: 9 }).map((thin) => ({ thin })) },
    ),
    { maxLength: 400 },
  );
};

/** Runs the operations on the index and on a plain model (a Map, sorted when walked), comparing every answer. */
const agrees = (operations: Op[], prefill: number[]): void => {
  const index = new IdIndex();
  const model = new Map<number, number>();
  for (const id of prefill) {
    index.set(id, id + 1);
    model.set(id, id + 1);
  }
  const sorted = () => [...model.keys()].sort((a, b) => a - b);
  const walked = (walk: (visit: (slot: number) => boolean) => void) => {
    const slots: number[] = [];
    walk((slot) => slots.push(slot) > 0);
    return slots;
  };
  operations.forEach((op, n) => {
    if ("set" in op) {
      index.set(op.set, n);
      model.set(op.set, n);
    } else if ("delete" in op) {
      expect(index.delete(op.delete)).toBe(model.delete(op.delete));
    } else if ("thin" in op) {
      // Deletes most ids at once: tombstones then outnumber live entries.
      for (const id of sorted()) if (id % op.thin !== 0) expect(index.delete(id)).toBe(model.delete(id));
    } else if ("up" in op) {
      const expected = sorted().filter((id) => op.up === undefined || id > op.up);
      expect(walked((visit) => index.walkUp(op.up, visit))).toEqual(expected.map((id) => model.get(id)));
    } else {
      const expected = sorted().filter((id) => op.down === undefined || id < op.down);
      expect(walked((visit) => index.walkDown(op.down, visit))).toEqual(expected.reverse().map((id) => model.get(id)));
    }
    expect(index.size).toBe(model.size);
  });
  for (const op of operations) {
    const id = "set" in op ? op.set : "delete" in op ? op.delete : undefined;
    if (id !== undefined) expect(index.get(id)).toBe(model.get(id) ?? -1);
  }
  expect(walked((visit) => index.walkUp(undefined, visit))).toEqual(sorted().map((id) => model.get(id)));
};

describe("the memory order store's id index (sorted typed arrays with tombstones)", () => {
  it("answers get, size and walks both ways as a sorted model does, through random sets and deletes", () => {
    fc.assert(fc.property(ops(50), (operations) => agrees(operations, [])));
  });

  it("does so when deletes thin out thousands of ids (compaction and shrinking)", () => {
    const prefill = Array.from({ length: 3_000 }, (_, i) => 2 * i);
    fc.assert(
      fc.property(ops(6_000), (operations) => agrees(operations, prefill)),
      { numRuns: 30 },
    );
  });

  it("stops a walk when told, and takes back an id removed earlier", () => {
    const index = new IdIndex();
    for (let id = 1; id <= 1_000; id++) index.set(id, id);
    for (let id = 1; id <= 900; id++) index.delete(id);
    const seen: number[] = [];
    index.walkUp(undefined, (slot) => seen.push(slot) < 3);
    expect(seen).toEqual([901, 902, 903]);
    index.set(5, 77);
    expect(index.get(5)).toBe(77);
    expect(index.size).toBe(101);
    const below: number[] = [];
    index.walkDown(902, (slot) => below.push(slot) > 0);
    expect(below).toEqual([901, 77]);
  });
});
