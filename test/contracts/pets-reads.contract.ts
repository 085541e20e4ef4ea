import { describe, expect, it } from "vitest";
import type { ContractHarness } from "./harness.ts";
import { aPet, everything } from "./mothers.ts";
import { idsOf, mark, petStoresPerTest, since } from "./pets-contract-kit.ts";

/** The pet port's reads: what an insert stores, listing, search and sort, and the queries of category checks and recovery. */
export const petsReadsContract = (harness: ContractHarness): void => {
  describe(`Pets contract (${harness.name})`, () => {
    const { pets } = petStoresPerTest(harness);

    it("gives back what was inserted, marks, fences and dates included, and undefined for an unknown id", async () => {
      const pet = aPet({
        id: 7,
        name: "Rex",
        categoryId: 3,
        status: "pending",
        pendingCause: "sold-out",
        revision: 4,
        stock: 2,
        holdCount: 2,
        heldUnits: 6,
        marks: [mark(3, "reserve", 1, "abc"), mark(3, "settle", 1), mark(11, "settle", 5)],
        fences: { 3: 2, 11: 1 },
      });
      const provisional = aPet({
        id: 8,
        lifecycle: "creating",
        movingTo: 9,
        provisionalSince: since,
        pendingCause: "hold",
        status: "pending",
      });
      await pets().insert(pet);
      await pets().insert(provisional);

      expect(await pets().ofId(7)).toEqual(pet);
      expect(await pets().ofId(8)).toEqual(provisional);
      expect(await pets().ofId(9)).toBeUndefined();
    });

    it("refuses a second insert of the same id", async () => {
      await pets().insert(aPet({ id: 1 }));
      await expect(pets().insert(aPet({ id: 1, name: "Other" }))).rejects.toThrow();
      expect((await pets().ofId(1))?.name).toBe("Rex");
    });

    it("stores and returns copies", async () => {
      const inserted = aPet({
        id: 1,
        marks: [mark(1, "reserve", 1, "x")],
        fences: { 1: 1 },
        provisionalSince: since,
        movingTo: 2,
      });
      await pets().insert(inserted);
      inserted.marks[0]!.units = 9;
      const read = await pets().ofId(1);
      read!.marks.push(mark(2, "settle"));
      read!.provisionalSince!.setUTCFullYear(2000);
      (read!.fences as Record<number, number>)[1] = 5;
      (await pets().ofId(1))!.marks[0]!.since.setUTCFullYear(2001);
      const listed = await pets().list({ limit: 10 });
      listed[0]!.stock = 99;

      expect(await pets().ofId(1)).toEqual(
        aPet({ id: 1, marks: [mark(1, "reserve", 1, "x")], fences: { 1: 1 }, provisionalSince: since, movingTo: 2 }),
      );
    });

    describe("list", () => {
      it("shows visible pets only, ascending id, with after and limit", async () => {
        for (const id of [4, 2, 5, 1, 3]) await pets().insert(aPet({ id }));
        await pets().insert(aPet({ id: 6, lifecycle: "creating", provisionalSince: since }));
        await pets().insert(aPet({ id: 7, lifecycle: "deleting", provisionalSince: since }));
        await pets().insert(aPet({ id: 8, movingTo: 2, provisionalSince: since }));

        expect(idsOf(await pets().list({ limit: 2 }))).toEqual([1, 2]);
        expect(idsOf(await pets().list({ limit: 2, after: 2 }))).toEqual([3, 4]);
        expect(idsOf(await pets().list({ limit: 5, after: 4 }))).toEqual([5, 8]);
      });

      it("filters by statuses, category and ids, alone and together", async () => {
        await pets().insert(aPet({ id: 1, categoryId: 10, status: "available" }));
        await pets().insert(aPet({ id: 2, categoryId: 10, status: "sold" }));
        await pets().insert(aPet({ id: 3, categoryId: 20, status: "available" }));
        await pets().insert(aPet({ id: 4, categoryId: 10, status: "pending" }));
        await pets().insert(aPet({ id: 5, categoryId: 10, status: "available" }));

        expect(idsOf(await pets().list({ ...everything, statuses: ["pending"] }))).toEqual([4]);
        expect(idsOf(await pets().list({ ...everything, statuses: ["sold", "available"] }))).toEqual([1, 2, 3, 5]);
        expect(idsOf(await pets().list({ ...everything, categoryId: 10 }))).toEqual([1, 2, 4, 5]);
        expect(idsOf(await pets().list({ ...everything, ids: [4, 2, 99] }))).toEqual([2, 4]);
        const query = { categoryId: 10, statuses: ["available"] as const, ids: [1, 2, 3, 4, 5] };
        expect(idsOf(await pets().list({ ...query, limit: 1 }))).toEqual([1]);
        expect(idsOf(await pets().list({ ...query, limit: 2, after: 1 }))).toEqual([5]);
      });
    });

    describe("list by name and in other orders", () => {
      const names = ["rex", "Rexa", "REX", "bella", "Ébène", "rexy", "Max", "Rèx", "𝒳avier", "\uFFFDend"];
      const insertNamed = async () => {
        for (const [i, name] of names.entries()) await pets().insert(aPet({ id: i + 1, name }));
        await pets().insert(aPet({ id: 20, name: "Rex hidden", lifecycle: "creating", provisionalSince: since }));
      };

      it("matches a name prefix ignoring case, in any order, provisional pets never", async () => {
        await insertNamed();

        expect(idsOf(await pets().list({ ...everything, namePrefix: "rex" }))).toEqual([1, 2, 3, 6]);
        expect(idsOf(await pets().list({ ...everything, namePrefix: "rexa" }))).toEqual([2]);
        expect(idsOf(await pets().list({ ...everything, namePrefix: "é" }))).toEqual([5]);
        expect(idsOf(await pets().list({ ...everything, namePrefix: "𝒳" }))).toEqual([9]);
        expect(idsOf(await pets().list({ ...everything, namePrefix: "zzz" }))).toEqual([]);
        expect(idsOf(await pets().list({ ...everything, namePrefix: "rex", sort: "-id" }))).toEqual([6, 3, 2, 1]);
        expect(idsOf(await pets().list({ ...everything, namePrefix: "rex", sort: "name" }))).toEqual([1, 3, 2, 6]);
      });

      it("orders by name key then id, code point order, and pages after (name key, id)", async () => {
        await insertNamed();
        const byName = [4, 7, 1, 3, 2, 6, 8, 5, 10, 9];

        expect(idsOf(await pets().list({ ...everything, sort: "name" }))).toEqual(byName);
        const pages: number[][] = [];
        let cursor: { after?: number; afterName?: string } = {};
        for (;;) {
          const page = await pets().list({ limit: 3, sort: "name", ...cursor });
          if (page.length === 0) break;
          pages.push(idsOf(page));
          const last = page.at(-1)!;
          cursor = { after: last.id, afterName: last.name.toLowerCase() };
        }
        expect(pages.flat()).toEqual(byName);
        expect(pages[0]).toEqual([4, 7, 1]);
      });

      it("pages in descending id order below `after`", async () => {
        for (const id of [1, 2, 3, 4, 5]) await pets().insert(aPet({ id }));

        expect(idsOf(await pets().list({ limit: 2, sort: "-id" }))).toEqual([5, 4]);
        expect(idsOf(await pets().list({ limit: 2, sort: "-id", after: 4 }))).toEqual([3, 2]);
        expect(idsOf(await pets().list({ limit: 5, sort: "-id", after: 2 }))).toEqual([1]);
        expect(idsOf(await pets().list({ limit: 5, sort: "-id", ids: [1, 3, 5], after: 5 }))).toEqual([3, 1]);
      });

      it("keeps the name key with a rename: the pet is found by its new name only", async () => {
        await pets().insert(aPet({ id: 1, name: "Rex" }));
        await pets().edit({ petId: 1, fields: { name: "Bella" }, checkedStatus: "available", events: [] });

        expect(idsOf(await pets().list({ ...everything, namePrefix: "rex" }))).toEqual([]);
        expect(idsOf(await pets().list({ ...everything, namePrefix: "bel" }))).toEqual([1]);
      });
    });

    it("tells whether any pet, provisional or moving in, names a category", async () => {
      await pets().insert(aPet({ id: 1, categoryId: 10 }));
      await pets().insert(aPet({ id: 2, categoryId: 20, lifecycle: "creating", provisionalSince: since }));
      await pets().insert(aPet({ id: 3, categoryId: 10, movingTo: 30, provisionalSince: since }));

      expect(await pets().anyNaming(10)).toBe(true);
      expect(await pets().anyNaming(20)).toBe(true);
      expect(await pets().anyNaming(30)).toBe(true);
      expect(await pets().anyNaming(40)).toBe(false);
    });

    it("lists recovery's work: provisional pets and pets with marks, ascending id, paged", async () => {
      await pets().insert(aPet({ id: 1, holdCount: 5, heldUnits: 5 }));
      await pets().insert(aPet({ id: 2, lifecycle: "creating", provisionalSince: since }));
      await pets().insert(aPet({ id: 3, movingTo: 5, provisionalSince: since, marks: [mark(1, "reserve", 1, "a")] }));
      await pets().insert(aPet({ id: 4, lifecycle: "deleting", provisionalSince: since }));
      await pets().insert(aPet({ id: 5, marks: [mark(2, "settle")] }));

      expect(idsOf(await pets().provisional(everything))).toEqual([2, 3, 4]);
      expect(idsOf(await pets().provisional({ limit: 2 }))).toEqual([2, 3]);
      expect(idsOf(await pets().provisional({ limit: 2, after: 3 }))).toEqual([4]);
      expect(idsOf(await pets().withMarks(everything))).toEqual([3, 5]);
      expect(idsOf(await pets().withMarks({ limit: 1, after: 3 }))).toEqual([5]);
    });
  });
};
