import { describe, expect, it } from "vitest";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";

export const inventoryContract = (harness: ContractHarness): void => {
  describe(`Inventory contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const inventory = () => stores().inventory;
    const stock = async (petId: number, quantity: number) => {
      await inventory().create(petId);
      await inventory().set(petId, quantity);
    };

    it("creates an item with quantity 0; a pet without one has undefined", async () => {
      await inventory().create(1);

      expect(await inventory().quantityOf(1)).toBe(0);
      expect(await inventory().quantityOf(2)).toBeUndefined();
    });

    it("sets the quantity of an existing item only", async () => {
      await inventory().create(1);

      expect(await inventory().set(1, 1_000_000)).toBe(true);
      expect(await inventory().quantityOf(1)).toBe(1_000_000);
      expect(await inventory().set(2, 5)).toBe(false);
      expect(await inventory().quantityOf(2)).toBeUndefined();
    });

    it("gives the quantities of the pets asked for that have items", async () => {
      await stock(1, 5);
      await stock(2, 0);
      await stock(3, 7);

      expect(await inventory().quantitiesOf([3, 2, 99])).toEqual(
        new Map([
          [3, 7],
          [2, 0],
        ]),
      );
      expect(await inventory().quantitiesOf([])).toEqual(new Map());
    });

    describe("reserve", () => {
      it("takes units and returns what is left, down to 0", async () => {
        await stock(1, 5);

        expect(await inventory().reserve(1, 2)).toBe(3);
        expect(await inventory().reserve(1, 3)).toBe(0);
        expect(await inventory().quantityOf(1)).toBe(0);
      });

      it("takes nothing when fewer units are in stock", async () => {
        await stock(1, 3);

        expect(await inventory().reserve(1, 4)).toBeUndefined();
        expect(await inventory().quantityOf(1)).toBe(3);
      });

      it("returns undefined for a pet without an item and creates none", async () => {
        expect(await inventory().reserve(9, 1)).toBeUndefined();
        expect(await inventory().quantityOf(9)).toBeUndefined();
      });

      it("is atomic: 200 concurrent single-unit reservations of 50 in stock, exactly 50 succeed", async () => {
        await stock(1, 50);

        const results = await Promise.all(Array.from({ length: 200 }, () => inventory().reserve(1, 1)));

        const left = results.filter((r) => r !== undefined);
        expect(left).toHaveLength(50);
        expect(new Set(left)).toEqual(new Set(Array.from({ length: 50 }, (_, i) => i)));
        expect(await inventory().quantityOf(1)).toBe(0);
      });
    });

    describe("release", () => {
      it("gives units back and returns the new quantity", async () => {
        await stock(1, 2);

        expect(await inventory().release(1, 3)).toBe(5);
        expect(await inventory().quantityOf(1)).toBe(5);
      });

      it("returns undefined for a pet without an item and creates none", async () => {
        expect(await inventory().release(9, 1)).toBeUndefined();
        expect(await inventory().quantityOf(9)).toBeUndefined();
      });

      it("counts every one of many concurrent releases", async () => {
        await stock(1, 0);

        const results = await Promise.all(Array.from({ length: 50 }, () => inventory().release(1, 1)));

        expect(new Set(results)).toEqual(new Set(Array.from({ length: 50 }, (_, i) => i + 1)));
        expect(await inventory().quantityOf(1)).toBe(50);
      });
    });

    it("removes an item, after which the pet has none", async () => {
      await stock(1, 4);
      await stock(2, 6);

      await inventory().remove(1);

      expect(await inventory().quantityOf(1)).toBeUndefined();
      expect(await inventory().reserve(1, 1)).toBeUndefined();
      expect(await inventory().quantityOf(2)).toBe(6);
      await expect(inventory().remove(1)).resolves.toBeUndefined();
    });
  });
};
