import { describe, expect, it } from "vitest";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";

export const idAllocatorContract = (harness: ContractHarness): void => {
  describe(`IdAllocator contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const ids = () => stores().ids;

    it("counts 1, 2, 3… in each sequence", async () => {
      expect([await ids().next("pets"), await ids().next("pets"), await ids().next("pets")]).toEqual([1, 2, 3]);
    });

    it("keeps the sequences independent", async () => {
      expect(await ids().next("pets")).toBe(1);
      expect(await ids().next("pets")).toBe(2);
      expect(await ids().next("categories")).toBe(1);
      expect(await ids().next("orders")).toBe(1);
      expect(await ids().next("api-keys")).toBe(1);
      expect(await ids().next("categories")).toBe(2);
    });

    it("never hands out an id twice under concurrency", async () => {
      const handedOut = await Promise.all(Array.from({ length: 100 }, () => ids().next("orders")));

      expect(new Set(handedOut).size).toBe(100);
      expect(handedOut.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
      expect(await ids().next("orders")).toBeGreaterThan(Math.max(...handedOut));
    });

    it("two instances on one store never hand out the same id, and each hands out increasing ids", async () => {
      const here = ids();
      const there = harness.sibling?.().ids ?? here;
      const fromHere: number[] = [];
      const fromThere: number[] = [];
      for (let i = 0; i < 150; i++) {
        fromHere.push(await here.next("orders"));
        fromThere.push(await there.next("orders"));
      }

      expect(new Set([...fromHere, ...fromThere]).size).toBe(300);
      expect([...fromHere, ...fromThere].every((id) => Number.isInteger(id) && id > 0)).toBe(true);
      const ascending = (list: number[]) => list.every((id, i) => i === 0 || id > list[i - 1]!);
      expect(ascending(fromHere)).toBe(true);
      expect(ascending(fromThere)).toBe(true);
    });
  });
};
