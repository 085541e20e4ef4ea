import { describe, expect, it } from "vitest";
import { ListPets } from "../../core/pets/list-pets.ts";
import type { Pet } from "../../core/pets/pet.ts";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";
import { aPet } from "./mothers.ts";

/**
 * The name order, through the use case that pages it (its cursor is the plain name key, the stores compare order
 * keys): natural, caseless, ties by id, the same on every store, and exact from page to page.
 */
export const petNameOrderContract = (harness: ContractHarness): void => {
  describe(`Pet name order contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const list = () => new ListPets(stores().pets);

    const names: [number, string][] = [
      [1, "Hamster 10"],
      [2, "Hamster 2"],
      [3, "hamster 1"],
      [4, "Hamster 02"],
      [5, "Hamster"],
      [6, "Hamster 100"],
      [7, "Hamster 9"],
      [8, "Rex 007"],
      [9, "Rex 7"],
      [10, "rex7b"],
      [11, "Bo"],
      [12, "Ébène 3"],
      [13, "a1b10"],
      [14, "a1b2"],
      [15, "Hamster 0"],
    ];
    /** Numbers by value (leading zeros aside), case ignored, code point order otherwise, then id. */
    const natural = [14, 13, 11, 5, 15, 3, 2, 4, 7, 1, 6, 8, 9, 10, 12];
    const insertNamed = async () => {
      for (const [id, name] of names) await stores().pets.insert(aPet({ id, name }));
      // Not yet created: never listed, whatever its name.
      await stores().pets.insert(
        aPet({ id: 20, name: "Hamster 3", lifecycle: "creating", provisionalSince: new Date() }),
      );
    };
    const idsOf = (pets: readonly Pet[]) => pets.map((p) => p.id);

    /** Every page of the name order, `limit` at a time, each after the cursor the previous one answered. */
    const walk = async (limit: number, namePrefix?: string): Promise<number[][]> => {
      const pages: number[][] = [];
      let cursor: { after?: number; afterName?: string } = {};
      for (;;) {
        const page = await list().execute({ limit, sort: "name", ...(namePrefix && { namePrefix }), ...cursor });
        pages.push(idsOf(page.items));
        if (page.nextAfter === undefined) return pages;
        expect(page.nextAfterName).toBeDefined();
        cursor = { after: page.nextAfter, afterName: page.nextAfterName! };
        expect(pages.length).toBeLessThan(30);
      }
    };

    it("sorts names naturally: Hamster 2 before Hamster 10, equal numbers by id", async () => {
      await insertNamed();

      expect(idsOf((await list().execute({ limit: 100, sort: "name" })).items)).toEqual(natural);
    });

    it.each([1, 2, 3, 4, 7, 14, 15])("pages %i at a time with no pet skipped or repeated", async (limit) => {
      await insertNamed();

      const pages = await walk(limit);

      expect(pages.flat()).toEqual(natural);
      expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
      expect(pages.length).toBe(Math.ceil(natural.length / limit));
    });

    it("keeps the cursor the plain caseless name key, as the Link header shows it", async () => {
      await insertNamed();

      const first = await list().execute({ limit: 7, sort: "name" });

      expect(idsOf(first.items)).toEqual(natural.slice(0, 7));
      expect(first).toMatchObject({ nextAfter: 2, nextAfterName: "hamster 2" });
    });

    it("searches by the plain start of the name and orders the matches naturally", async () => {
      await insertNamed();

      expect(await walk(1, "hamster 1")).toEqual([[3], [1], [6]]);
      expect(idsOf((await list().execute({ limit: 10, sort: "name", namePrefix: "Hamster 0" })).items)).toEqual([
        15, 4,
      ]);
      expect(idsOf((await list().execute({ limit: 10, sort: "name", namePrefix: "rex 0" })).items)).toEqual([8]);
    });

    it("folds the capital sharp s as the small one: STRAẞE, Straße and STRASSE find each other", async () => {
      for (const [id, name] of [
        [1, "Straße"],
        [2, "STRAẞE 2"],
        [3, "Strasse 3"],
        [4, "Strand"],
      ] as const)
        await stores().pets.insert(aPet({ id, name }));

      for (const prefix of ["STRAẞE", "straße", "STRASSE", "strasse"]) {
        expect(idsOf((await list().execute({ limit: 10, sort: "name", namePrefix: prefix })).items), prefix).toEqual([
          1, 2, 3,
        ]);
      }
    });

    it("moves a renamed pet to its new place", async () => {
      await insertNamed();

      const renamed = await stores().pets.edit({
        petId: 2,
        fields: { name: "Hamster 20" },
        checkedStatus: "available",
        events: [],
      });

      expect(renamed.applied).toBe(true);
      expect((await walk(4)).flat()).toEqual([14, 13, 11, 5, 15, 3, 4, 7, 1, 2, 6, 8, 9, 10, 12]);
    });
  });
};
