import { describe, expect, it } from "vitest";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";
import { anOrder, at, everything } from "./mothers.ts";

export const ordersContract = (harness: ContractHarness): void => {
  describe(`Orders contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const orders = () => stores().orders;
    const idsOf = (list: { id: number }[]) => list.map((o) => o.id);

    it("gives back what was added, dates to the millisecond, and undefined for an unknown id", async () => {
      await orders().add(anOrder({ id: 1, petId: 4, quantity: 3, shipDate: at("2026-12-24T17:45:12.345Z"), placedBy: 9 }));
      await orders().add(anOrder({ id: 2, shipDate: undefined, complete: true }));

      const first = await orders().ofId(1);
      expect(first).toEqual({ id: 1, petId: 4, quantity: 3, shipDate: at("2026-12-24T17:45:12.345Z"), complete: false, placedBy: 9 });
      expect(first?.shipDate?.getTime()).toBe(Date.parse("2026-12-24T17:45:12.345Z"));
      expect(await orders().ofId(2)).toEqual(anOrder({ id: 2, shipDate: undefined, complete: true }));
      expect(await orders().ofId(3)).toBeUndefined();
    });

    it("stores and returns copies", async () => {
      const added = anOrder({ id: 1, quantity: 2 });
      await orders().add(added);
      added.quantity = 99;
      added.shipDate!.setUTCFullYear(2000);
      const read = await orders().ofId(1);
      read!.shipDate!.setUTCFullYear(2001);
      read!.complete = true;
      const updated = await orders().updateOpen(1, { complete: false, shipDate: at("2026-12-01T00:00:00.001Z") });
      updated!.shipDate!.setUTCFullYear(2002);

      expect(await orders().ofId(1)).toEqual(anOrder({ id: 1, quantity: 2, shipDate: at("2026-12-01T00:00:00.001Z") }));
    });

    describe("list", () => {
      it("pages in ascending id order with after and limit", async () => {
        for (const id of [3, 1, 4, 2]) await orders().add(anOrder({ id }));

        expect(idsOf(await orders().list({ limit: 3 }))).toEqual([1, 2, 3]);
        expect(idsOf(await orders().list({ limit: 3, after: 3 }))).toEqual([4]);
        expect(await orders().list({ limit: 3, after: 4 })).toEqual([]);
      });

      it("filters by completion, pet and placing key, alone and together", async () => {
        await orders().add(anOrder({ id: 1, petId: 10, placedBy: 100, complete: false }));
        await orders().add(anOrder({ id: 2, petId: 10, placedBy: 200, complete: true }));
        await orders().add(anOrder({ id: 3, petId: 20, placedBy: 100, complete: true }));
        await orders().add(anOrder({ id: 4, petId: 10, placedBy: 100, complete: true }));

        expect(idsOf(await orders().list({ ...everything, complete: true }))).toEqual([2, 3, 4]);
        expect(idsOf(await orders().list({ ...everything, complete: false }))).toEqual([1]);
        expect(idsOf(await orders().list({ ...everything, petId: 10 }))).toEqual([1, 2, 4]);
        expect(idsOf(await orders().list({ ...everything, placedBy: 100 }))).toEqual([1, 3, 4]);
        expect(idsOf(await orders().list({ ...everything, complete: true, petId: 10, placedBy: 100 }))).toEqual([4]);
        expect(idsOf(await orders().list({ limit: 1, after: 1, petId: 10 }))).toEqual([2]);
      });
    });

    describe("updateOpen", () => {
      it("writes completion and ship date of an open order and returns it", async () => {
        await orders().add(anOrder({ id: 1, shipDate: undefined }));

        const shipped = await orders().updateOpen(1, { complete: false, shipDate: at("2026-12-01T10:00:00.250Z") });
        expect(shipped).toEqual(anOrder({ id: 1, shipDate: at("2026-12-01T10:00:00.250Z") }));

        const completed = await orders().updateOpen(1, { complete: true, shipDate: at("2026-12-02T10:00:00.750Z") });
        expect(completed).toEqual(anOrder({ id: 1, complete: true, shipDate: at("2026-12-02T10:00:00.750Z") }));
        expect(await orders().ofId(1)).toEqual(completed);
      });

      it("leaves a completed order alone and returns undefined", async () => {
        await orders().add(anOrder({ id: 1, complete: true }));

        expect(await orders().updateOpen(1, { complete: true, shipDate: at("2027-01-01T00:00:00.000Z") })).toBeUndefined();
        expect(await orders().ofId(1)).toEqual(anOrder({ id: 1, complete: true }));
      });

      it("returns undefined for a missing order and does not create it", async () => {
        expect(await orders().updateOpen(9, { complete: true, shipDate: undefined })).toBeUndefined();
        expect(await orders().ofId(9)).toBeUndefined();
      });

      it("lets exactly one of many concurrent completions win", async () => {
        await orders().add(anOrder({ id: 1 }));

        const results = await Promise.all(
          Array.from({ length: 10 }, () => orders().updateOpen(1, { complete: true, shipDate: undefined })),
        );

        expect(results.filter((r) => r !== undefined)).toHaveLength(1);
      });
    });

    describe("removeOpen", () => {
      it("deletes an open order and returns what it deleted", async () => {
        await orders().add(anOrder({ id: 1, quantity: 3 }));

        expect(await orders().removeOpen(1)).toEqual(anOrder({ id: 1, quantity: 3 }));
        expect(await orders().ofId(1)).toBeUndefined();
        expect(await orders().removeOpen(1)).toBeUndefined();
      });

      it("keeps a completed order and returns undefined", async () => {
        await orders().add(anOrder({ id: 1, complete: true }));

        expect(await orders().removeOpen(1)).toBeUndefined();
        expect(await orders().ofId(1)).toEqual(anOrder({ id: 1, complete: true }));
      });

      it("returns undefined for a missing order", async () => {
        expect(await orders().removeOpen(9)).toBeUndefined();
      });

      it("lets exactly one of many concurrent removals win", async () => {
        await orders().add(anOrder({ id: 1 }));

        const results = await Promise.all(Array.from({ length: 10 }, () => orders().removeOpen(1)));

        expect(results.filter((r) => r !== undefined)).toHaveLength(1);
      });
    });

    it("tells whether a pet has open orders", async () => {
      await orders().add(anOrder({ id: 1, petId: 10, complete: true }));
      await orders().add(anOrder({ id: 2, petId: 20, complete: false }));

      expect(await orders().hasOpenForPet(10)).toBe(false);
      expect(await orders().hasOpenForPet(20)).toBe(true);
      expect(await orders().hasOpenForPet(30)).toBe(false);
      await orders().updateOpen(2, { complete: true, shipDate: undefined });
      expect(await orders().hasOpenForPet(20)).toBe(false);
    });
  });
};
