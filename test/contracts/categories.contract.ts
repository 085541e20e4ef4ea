import { describe, expect, it } from "vitest";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";
import { aCategory, everything } from "./mothers.ts";

export const categoriesContract = (harness: ContractHarness): void => {
  describe(`Categories contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const categories = () => stores().categories;
    const nameTaken = { code: "category_name_taken" };

    it("gives back what was added, and undefined for an unknown id", async () => {
      await categories().add(aCategory({ id: 1, name: "Dogs", description: "Loyal companions" }));
      await categories().add({ id: 2, name: "Cats" });

      expect(await categories().ofId(1)).toEqual({ id: 1, name: "Dogs", description: "Loyal companions" });
      expect(await categories().ofId(2)).toEqual({ id: 2, name: "Cats" });
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

        await expect(categories().replace(aCategory({ id: 2, name: "DOGS" }))).rejects.toMatchObject(nameTaken);
        expect((await categories().ofId(2))?.name).toBe("Cats");
      });

      it("lets a category keep its own name in another case", async () => {
        await categories().add(aCategory({ id: 1, name: "Dogs" }));

        expect(await categories().replace(aCategory({ id: 1, name: "DOGS", description: "Loud" }))).toBe(true);
        expect(await categories().ofId(1)).toEqual({ id: 1, name: "DOGS", description: "Loud" });
      });

      it("frees the name when the category is removed", async () => {
        await categories().add(aCategory({ id: 1, name: "Dogs" }));
        await categories().remove(1);

        await categories().add(aCategory({ id: 2, name: "dogs" }));
        expect((await categories().ofId(2))?.name).toBe("dogs");
      });

      it("lets exactly one of many concurrent adds of the same name succeed", async () => {
        const names = ["Dogs", "dogs", "DOGS", "dOgS", "Dogs", "doGs", "DoGs", "dogS", "DOgs", "dogs"];

        const results = await Promise.allSettled(names.map((name, i) => categories().add(aCategory({ id: i + 1, name }))));

        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        for (const r of results.filter((r) => r.status === "rejected")) expect(r.reason).toMatchObject(nameTaken);
        expect(await categories().list(everything)).toHaveLength(1);
      });
    });

    it("replaces an existing category and refuses a missing one", async () => {
      await categories().add(aCategory({ id: 1, name: "Dogs" }));

      expect(await categories().replace({ id: 1, name: "Hounds" })).toBe(true);
      expect(await categories().ofId(1)).toEqual({ id: 1, name: "Hounds" });
      expect(await categories().replace(aCategory({ id: 2, name: "Cats" }))).toBe(false);
      expect(await categories().ofId(2)).toBeUndefined();
    });

    it("removes a category once", async () => {
      await categories().add(aCategory({ id: 1 }));

      expect(await categories().remove(1)).toBe(true);
      expect(await categories().remove(1)).toBe(false);
      expect(await categories().ofId(1)).toBeUndefined();
    });
  });
};
