import { describe, expect, it } from "vitest";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";
import { aPet, everything } from "./mothers.ts";

export const petsContract = (harness: ContractHarness): void => {
  describe(`Pets contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const pets = () => stores().pets;
    const idsOf = (list: { id: number }[]) => list.map((p) => p.id);

    it("gives back what was added, and undefined for an unknown id", async () => {
      await pets().add(aPet({ id: 7, name: "Rex", categoryId: 3, status: "pending" }));

      expect(await pets().ofId(7)).toEqual({ id: 7, name: "Rex", categoryId: 3, status: "pending" });
      expect(await pets().ofId(8)).toBeUndefined();
    });

    it("stores and returns copies", async () => {
      const added = aPet({ id: 1, name: "Rex" });
      await pets().add(added);
      added.name = "changed after add";
      const read = await pets().ofId(1);
      read!.name = "changed after read";
      const [listed] = await pets().list(everything);
      listed!.status = "sold";

      expect(await pets().ofId(1)).toEqual(aPet({ id: 1, name: "Rex" }));
    });

    describe("list", () => {
      it("pages in ascending id order with after and limit", async () => {
        for (const id of [4, 2, 5, 1, 3]) await pets().add(aPet({ id }));

        expect(idsOf(await pets().list({ limit: 2 }))).toEqual([1, 2]);
        expect(idsOf(await pets().list({ limit: 2, after: 2 }))).toEqual([3, 4]);
        expect(idsOf(await pets().list({ limit: 2, after: 4 }))).toEqual([5]);
        expect(await pets().list({ limit: 2, after: 5 })).toEqual([]);
      });

      it("filters by statuses", async () => {
        await pets().add(aPet({ id: 1, status: "available" }));
        await pets().add(aPet({ id: 2, status: "pending" }));
        await pets().add(aPet({ id: 3, status: "sold" }));

        expect(idsOf(await pets().list({ ...everything, statuses: ["pending"] }))).toEqual([2]);
        expect(idsOf(await pets().list({ ...everything, statuses: ["sold", "available"] }))).toEqual([1, 3]);
      });

      it("filters by category", async () => {
        await pets().add(aPet({ id: 1, categoryId: 10 }));
        await pets().add(aPet({ id: 2, categoryId: 20 }));
        await pets().add(aPet({ id: 3, categoryId: 10 }));

        expect(idsOf(await pets().list({ ...everything, categoryId: 10 }))).toEqual([1, 3]);
        expect(await pets().list({ ...everything, categoryId: 30 })).toEqual([]);
      });

      it("filters by ids, ignoring unknown ones", async () => {
        for (const id of [1, 2, 3, 4]) await pets().add(aPet({ id }));

        expect(idsOf(await pets().list({ ...everything, ids: [4, 2, 99] }))).toEqual([2, 4]);
      });

      it("combines filters with paging", async () => {
        await pets().add(aPet({ id: 1, categoryId: 10, status: "available" }));
        await pets().add(aPet({ id: 2, categoryId: 10, status: "sold" }));
        await pets().add(aPet({ id: 3, categoryId: 20, status: "available" }));
        await pets().add(aPet({ id: 4, categoryId: 10, status: "available" }));
        await pets().add(aPet({ id: 5, categoryId: 10, status: "available" }));
        const query = { categoryId: 10, statuses: ["available"] as const, ids: [1, 2, 3, 4, 5] };

        expect(idsOf(await pets().list({ ...query, limit: 2 }))).toEqual([1, 4]);
        expect(idsOf(await pets().list({ ...query, limit: 2, after: 4 }))).toEqual([5]);
      });
    });

    describe("replace", () => {
      it("replaces the pet while its status is the expected one", async () => {
        await pets().add(aPet({ id: 1, name: "Rex", status: "available" }));

        const replaced = await pets().replace(aPet({ id: 1, name: "Max", categoryId: 2, status: "pending" }), "available");

        expect(replaced).toBe(true);
        expect(await pets().ofId(1)).toEqual(aPet({ id: 1, name: "Max", categoryId: 2, status: "pending" }));
      });

      it("refuses when the status changed meanwhile (stale expected status)", async () => {
        await pets().add(aPet({ id: 1, name: "Rex", status: "pending" }));

        expect(await pets().replace(aPet({ id: 1, name: "Max" }), "available")).toBe(false);
        expect(await pets().ofId(1)).toEqual(aPet({ id: 1, name: "Rex", status: "pending" }));
      });

      it("refuses a missing pet and does not create it", async () => {
        expect(await pets().replace(aPet({ id: 9 }), "available")).toBe(false);
        expect(await pets().ofId(9)).toBeUndefined();
      });
    });

    describe("changeStatus", () => {
      it("moves the status when it is still `from`", async () => {
        await pets().add(aPet({ id: 1, name: "Rex", status: "available" }));

        expect(await pets().changeStatus(1, "available", "pending")).toBe(true);
        expect(await pets().ofId(1)).toEqual(aPet({ id: 1, name: "Rex", status: "pending" }));
      });

      it("refuses from a wrong status and leaves the pet alone", async () => {
        await pets().add(aPet({ id: 1, status: "sold" }));

        expect(await pets().changeStatus(1, "pending", "available")).toBe(false);
        expect((await pets().ofId(1))?.status).toBe("sold");
      });

      it("refuses a missing pet", async () => {
        expect(await pets().changeStatus(9, "available", "pending")).toBe(false);
      });

      it("lets exactly one of many concurrent identical changes win", async () => {
        await pets().add(aPet({ id: 1, status: "available" }));

        const results = await Promise.all(Array.from({ length: 10 }, () => pets().changeStatus(1, "available", "pending")));

        expect(results.filter(Boolean)).toHaveLength(1);
        expect((await pets().ofId(1))?.status).toBe("pending");
      });
    });

    it("removes a pet once", async () => {
      await pets().add(aPet({ id: 1 }));
      await pets().add(aPet({ id: 2 }));

      expect(await pets().remove(1)).toBe(true);
      expect(await pets().remove(1)).toBe(false);
      expect(await pets().ofId(1)).toBeUndefined();
      expect(idsOf(await pets().list(everything))).toEqual([2]);
    });

    it("tells whether any pet is in a category", async () => {
      await pets().add(aPet({ id: 1, categoryId: 10 }));

      expect(await pets().anyInCategory(10)).toBe(true);
      expect(await pets().anyInCategory(20)).toBe(false);
      await pets().remove(1);
      expect(await pets().anyInCategory(10)).toBe(false);
    });
  });
};
