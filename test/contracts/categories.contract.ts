import { describe, expect, it } from "vitest";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";
import { aCategory, at, everything } from "./mothers.ts";

export const categoriesContract = (harness: ContractHarness): void => {
  describe(`Categories contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const categories = () => stores().categories;
    const nameTaken = { code: "category_name_taken" };
    const since = at("2026-11-21T12:00:00.123Z");

    it("gives back what was added, and undefined for an unknown id", async () => {
      await categories().add(aCategory({ id: 1, name: "Dogs", description: "Loyal companions", revision: 4 }));
      await categories().add(aCategory({ id: 2, name: "Cats", description: undefined, deletingSince: since }));

      expect(await categories().ofId(1)).toEqual(
        aCategory({ id: 1, name: "Dogs", description: "Loyal companions", revision: 4 }),
      );
      expect(await categories().ofId(2)).toEqual(
        aCategory({ id: 2, name: "Cats", description: undefined, deletingSince: since }),
      );
      expect(await categories().ofId(3)).toBeUndefined();
    });

    it("stores and returns copies", async () => {
      const added = aCategory({ id: 1, name: "Dogs" });
      await categories().add(added);
      added.name = "changed after add";
      const read = await categories().ofId(1);
      read!.name = "changed after read";
      const [listed] = await categories().list(everything);
      listed!.description = "changed after list";

      expect(await categories().ofId(1)).toEqual(aCategory({ id: 1, name: "Dogs" }));
    });

    it("pages in ascending id order with after and limit", async () => {
      for (const id of [3, 1, 2]) await categories().add(aCategory({ id, name: `Category ${id}` }));

      expect((await categories().list({ limit: 2 })).map((c) => c.id)).toEqual([1, 2]);
      expect((await categories().list({ limit: 2, after: 2 })).map((c) => c.id)).toEqual([3]);
      expect(await categories().list({ limit: 2, after: 3 })).toEqual([]);
    });

    describe("name uniqueness (case-insensitive)", () => {
      it("refuses to add a second category with the same name in any case", async () => {
        await categories().add(aCategory({ id: 1, name: "Dogs" }));

        await expect(categories().add(aCategory({ id: 2, name: "dOGS" }))).rejects.toMatchObject(nameTaken);
        expect(await categories().ofId(2)).toBeUndefined();
      });

      it("refuses to rename a category to another one's name", async () => {
        await categories().add(aCategory({ id: 1, name: "Dogs" }));
        await categories().add(aCategory({ id: 2, name: "Cats" }));

        await expect(categories().replace(2, { name: "DOGS" })).rejects.toMatchObject(nameTaken);
        expect(await categories().ofId(2)).toEqual(aCategory({ id: 2, name: "Cats" }));
      });

      it("lets a category keep its own name in another case", async () => {
        await categories().add(aCategory({ id: 1, name: "Dogs" }));

        expect(await categories().replace(1, { name: "DOGS", description: "Loud" })).toEqual(
          aCategory({ id: 1, name: "DOGS", description: "Loud", revision: 2 }),
        );
      });

      it("frees the name when the category is removed", async () => {
        await categories().add(aCategory({ id: 1, name: "Dogs" }));
        await categories().beginDelete(1, since);
        await categories().removeDeleting(1, since);

        await categories().add(aCategory({ id: 2, name: "dogs" }));
        expect((await categories().ofId(2))?.name).toBe("dogs");
      });

      // On the FerretDB test engine the losers wait on the unique index's locks until PostgreSQL's deadlock check
      // aborts one, which runs again after a pause (test/mongo/category-name-races.test.ts runs 40 such races): a
      // round can take seconds on a loaded machine, so the timeout is generous.
      it("lets exactly one of many concurrent adds of the same name succeed", async () => {
        const names = ["Dogs", "dogs", "DOGS", "dOgS", "Dogs", "doGs", "DoGs", "dogS", "DOgs", "dogs"];

        const results = await Promise.allSettled(
          names.map((name, i) => categories().add(aCategory({ id: i + 1, name }))),
        );

        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        for (const r of results.filter((r) => r.status === "rejected")) expect(r.reason).toMatchObject(nameTaken);
        expect(await categories().list(everything)).toHaveLength(1);
      }, 60_000);
    });

    describe("replace", () => {
      it("replaces name and description (dropping an omitted one), revision + 1; refuses a missing category", async () => {
        await categories().add(aCategory({ id: 1, name: "Dogs" }));

        expect(await categories().replace(1, { name: "Hounds" })).toEqual(
          aCategory({ id: 1, name: "Hounds", description: undefined, revision: 2 }),
        );
        expect(await categories().ofId(1)).toEqual(
          aCategory({ id: 1, name: "Hounds", description: undefined, revision: 2 }),
        );
        expect(await categories().replace(2, { name: "Cats" })).toBeUndefined();
        expect(await categories().ofId(2)).toBeUndefined();
      });

      it("checks the expected revision in the same write", async () => {
        await categories().add(aCategory({ id: 1, name: "Dogs", revision: 5 }));

        expect(await categories().replace(1, { name: "Hounds" }, 4)).toBeUndefined();
        expect((await categories().ofId(1))?.name).toBe("Dogs");
        expect(await categories().replace(1, { name: "Hounds" }, 5)).toMatchObject({ name: "Hounds", revision: 6 });
      });

      it("lets one of many concurrent replaces with the same expected revision win", async () => {
        await categories().add(aCategory({ id: 1, name: "Dogs" }));

        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) => categories().replace(1, { name: `Dogs ${i}` }, 1)),
        );

        expect(results.filter((r) => r !== undefined)).toHaveLength(1);
        expect((await categories().ofId(1))?.revision).toBe(2);
      });
    });

    describe("deletion states", () => {
      it("moves an active category to deleting once (revision + 1), optionally at an expected revision", async () => {
        await categories().add(aCategory({ id: 1 }));
        await categories().add(aCategory({ id: 2, name: "Cats", revision: 3 }));

        expect(await categories().beginDelete(1, since)).toBe(true);
        expect(await categories().ofId(1)).toEqual(aCategory({ id: 1, deletingSince: since, revision: 2 }));
        expect(await categories().beginDelete(1, at("2026-11-21T12:00:01.000Z"))).toBe(false);
        expect(await categories().beginDelete(2, since, 2)).toBe(false);
        expect(await categories().beginDelete(2, since, 3)).toBe(true);
        expect(await categories().beginDelete(9, since)).toBe(false);
      });

      it("aborts or removes only the deletion that began at `since`", async () => {
        await categories().add(aCategory({ id: 1 }));
        await categories().add(aCategory({ id: 2, name: "Cats" }));
        await categories().beginDelete(1, since);
        await categories().beginDelete(2, since);
        const other = at("2026-11-21T12:00:00.124Z");

        expect(await categories().abortDelete(1, other)).toBe(false);
        expect(await categories().removeDeleting(1, other)).toBe(false);
        expect(await categories().abortDelete(1, since)).toBe(true);
        expect(await categories().ofId(1)).toEqual(aCategory({ id: 1, revision: 3 }));
        expect(await categories().removeDeleting(1, since)).toBe(false);
        expect(await categories().removeDeleting(2, since)).toBe(true);
        expect(await categories().ofId(2)).toBeUndefined();
        expect(await categories().removeDeleting(2, since)).toBe(false);
      });

      it("lets exactly one of many concurrent deletions begin", async () => {
        await categories().add(aCategory({ id: 1 }));

        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => categories().beginDelete(1, new Date(since.getTime() + i))),
        );

        expect(results.filter(Boolean)).toHaveLength(1);
      });

      it("finds categories deleting since before a cutoff", async () => {
        await categories().add(aCategory({ id: 1, name: "A", deletingSince: at("2026-11-21T11:00:00.000Z") }));
        await categories().add(aCategory({ id: 2, name: "B", deletingSince: at("2026-11-21T12:00:00.000Z") }));
        await categories().add(aCategory({ id: 3, name: "C" }));

        expect(
          (await categories().deletingBefore(at("2026-11-21T12:00:00.000Z"), everything)).map((c) => c.id),
        ).toEqual([1]);
      });
    });
  });
};
