import { describe, expect, it } from "vitest";
import { fenceOf, type PetRecord } from "../../core/pets/pet-record.ts";
import {
  applySettlement,
  clearSettleMark,
  postReservation,
  MAX_STOCK,
  reserveSeeing,
  stockSetting,
  voidReservation,
} from "../../core/pets/stock-writes.ts";
import { ManualClock } from "../support/manual-clock.ts";
import type { ContractHarness } from "./harness.ts";
import { aPet, everything } from "./mothers.ts";
import { back, idsOf, mark, petStoresPerTest, reservation, setting, settlement, since } from "./pets-contract-kit.ts";

/** Stock writes of the pet port: the consequence each case has, and the stock moves of core/pets/stock-writes.ts. */
export const petStockContract = (harness: ContractHarness): void => {
  describe(`Pets contract (${harness.name})`, () => {
    const { pets, eventTypes, eventIds } = petStoresPerTest(harness);
    const clock = new ManualClock("2026-11-21T12:00:00.000Z");
    const reserve = async (petId: number, orderId: number, units: number, nonce = `n${orderId}`) =>
      (await reserveSeeing(pets(), clock, petId, orderId, units, nonce)).outcome;
    const order = (id: number, quantity: number, petId = 1) => ({ id, petId, quantity });

    describe("named writes: each checks its facts and changes the pet in one step, or changes nothing", () => {
      it("reserve takes the units, counts the hold and leaves this attempt's mark; the last units get their own consequence", async () => {
        await pets().insert(aPet({ id: 1, stock: 5, holdCount: 1, heldUnits: 4 }));

        // A stale hint (the last units expected) and then a right one: either way the case that holds applies.
        expect((await pets().reserve(reservation({ expectedStock: 2 }))).pet).toEqual(
          aPet({ id: 1, stock: 3, holdCount: 2, heldUnits: 6, marks: [mark(10, "reserve", 2, "n10")], revision: 2 }),
        );
        expect(
          (await pets().reserve(reservation({ orderId: 11, units: 3, nonce: "n11", expectedStock: 3 }))).pet,
        ).toEqual(
          aPet({
            id: 1,
            stock: 0,
            status: "pending",
            pendingCause: "sold-out",
            holdCount: 3,
            heldUnits: 9,
            marks: [mark(10, "reserve", 2, "n10"), mark(11, "reserve", 3, "n11")],
            revision: 3,
          }),
        );
        expect(await eventIds()).toEqual(["evt_last", "evt_left"]);
        expect(idsOf(await pets().withMarks(everything))).toEqual([1]);
      });

      it("keep drops the reserve mark only; undo also returns its units, with the consequence as the pet sold out or not; both move the fence of the order's bucket", async () => {
        const marks = [mark(10, "reserve", 2, "n10"), mark(11, "reserve", 1, "n11")];
        await pets().insert(
          aPet({ id: 1, stock: 0, status: "pending", pendingCause: "sold-out", holdCount: 3, heldUnits: 4, marks }),
        );
        await pets().insert(
          aPet({
            id: 2,
            stock: 1,
            status: "pending",
            pendingCause: "hold",
            holdCount: 1,
            heldUnits: 2,
            marks: [mark(10, "reserve", 2, "n10")],
          }),
        );

        expect((await pets().postReservation({ petId: 1, orderId: 11, nonce: "n11" })).pet).toEqual(
          aPet({
            id: 1,
            stock: 0,
            status: "pending",
            pendingCause: "sold-out",
            holdCount: 3,
            heldUnits: 4,
            marks: [marks[0]!],
            fences: { 11: 1 },
            revision: 2,
          }),
        );
        expect((await pets().voidReservation({ petId: 1, orderId: 10, nonce: "n10", units: 2, ...back })).pet).toEqual(
          aPet({
            id: 1,
            stock: 2,
            status: "available",
            holdCount: 2,
            heldUnits: 2,
            fences: { 10: 1, 11: 1 },
            revision: 3,
          }),
        );
        expect(
          (await pets().voidReservation({ petId: 2, orderId: 10, nonce: undefined, units: 2, ...back })).pet,
        ).toEqual(
          aPet({
            id: 2,
            stock: 3,
            status: "pending",
            pendingCause: "hold",
            holdCount: 0,
            heldUnits: 0,
            fences: { 10: 1 },
            revision: 2,
          }),
        );
        expect(await eventIds()).toEqual(["evt_otherwise", "evt_soldout"]);
        expect(idsOf(await pets().withMarks(everything))).toEqual([]);
      });

      it("a settlement leaves a settle mark and takes the units out of the holds; a release returns them", async () => {
        await pets().insert(
          aPet({
            id: 1,
            stock: 0,
            status: "pending",
            pendingCause: "sold-out",
            holdCount: 2,
            heldUnits: 5,
            fences: { 3: 1 },
          }),
        );

        expect((await pets().applySettlement(settlement("release", { orderId: 3, units: 2, fence: 1 }))).pet).toEqual(
          aPet({
            id: 1,
            stock: 2,
            status: "available",
            holdCount: 1,
            heldUnits: 3,
            marks: [mark(3, "settle", 2)],
            fences: { 3: 1 },
            revision: 2,
          }),
        );
        expect((await pets().applySettlement(settlement("consume", { orderId: 4, units: 3 }))).pet).toEqual(
          aPet({
            id: 1,
            stock: 2,
            status: "available",
            holdCount: 0,
            heldUnits: 0,
            marks: [mark(3, "settle", 2), mark(4, "settle", 3)],
            fences: { 3: 1 },
            revision: 3,
          }),
        );
        expect(await eventIds()).toEqual(["evt_otherwise", "evt_soldout"]);
      });

      it("the pet a settlement was seen as only orders its attempts: seen wrongly, the case that holds still applies", async () => {
        const soldOut = { stock: 0, status: "pending", pendingCause: "sold-out", holdCount: 1, heldUnits: 1 } as const;
        const inStock = { stock: 2, status: "available", pendingCause: undefined, holdCount: 1, heldUnits: 1 } as const;
        await pets().insert(aPet({ id: 1, ...soldOut }));
        await pets().insert(aPet({ id: 2, ...inStock }));
        await pets().insert(aPet({ id: 3, ...soldOut }));

        const seenAs = (seen: Partial<PetRecord>) => ({ seen: { ...aPet({ id: 0 }), ...seen } });
        expect((await pets().applySettlement({ ...settlement("release"), ...seenAs(inStock) })).pet).toMatchObject({
          stock: 1,
          status: "available",
        });
        expect(
          (await pets().applySettlement({ ...settlement("release", { orderId: 11 }), petId: 2, ...seenAs(soldOut) }))
            .pet,
        ).toMatchObject({ stock: 3, status: "available" });
        expect(
          (await pets().applySettlement({ ...settlement("consume", { orderId: 12 }), petId: 3, ...seenAs(inStock) }))
            .pet,
        ).toMatchObject({ stock: 0, status: "sold", holdCount: 0 });
        expect(await eventIds()).toEqual(["evt_otherwise", "evt_sold", "evt_soldout"]);
      });

      it.each<[string, string, Partial<PetRecord>]>([
        [
          "sold out, stock 0, its only holding order",
          "evt_sold",
          { pendingCause: "sold-out", status: "pending", holdCount: 1, heldUnits: 1 },
        ],
        [
          "sold out, another order holding units",
          "evt_otherwise",
          { pendingCause: "sold-out", status: "pending", holdCount: 2, heldUnits: 2 },
        ],
        [
          "sold out, yet units in stock",
          "evt_otherwise",
          { pendingCause: "sold-out", status: "pending", holdCount: 1, heldUnits: 1, stock: 1 },
        ],
        ["on a staff hold", "evt_otherwise", { pendingCause: "hold", status: "pending", holdCount: 1, heldUnits: 1 }],
        ["available", "evt_otherwise", { holdCount: 1, heldUnits: 1 }],
      ])("a consumption of a pet %s has the consequence %s", async (_, tag, overrides) => {
        await pets().insert(aPet({ id: 1, ...overrides }));

        const { pet } = await pets().applySettlement(settlement("consume"));

        expect(await eventIds()).toEqual([tag]);
        expect(pet).toMatchObject(
          tag === "evt_sold"
            ? { status: "sold", pendingCause: undefined }
            : { status: overrides.status ?? "available" },
        );
      });

      it("clearing a settle mark moves the fence of its bucket (order ids 32 apart share one) and nothing else", async () => {
        await pets().insert(
          aPet({ id: 1, marks: [mark(8, "reserve", 1, "n8"), mark(8, "settle")], fences: { 8: 2, 9: 1 } }),
        );

        expect((await pets().clearSettleMark({ petId: 1, orderId: 8 })).pet).toEqual(
          aPet({ id: 1, marks: [mark(8, "reserve", 1, "n8")], fences: { 8: 3, 9: 1 }, revision: 2 }),
        );
        await pets().applySettlement(settlement("release", { orderId: 40, fence: 3 }));
        await pets().clearSettleMark({ petId: 1, orderId: 40 });
        expect(await pets().ofId(1)).toMatchObject({ marks: [mark(8, "reserve", 1, "n8")], fences: { 8: 4, 9: 1 } });
      });

      it.each<[string, string, Partial<PetRecord>, Parameters<typeof setting>[0], Partial<PetRecord>]>([
        ["a sold pet", "evt_sold", { status: "sold" }, {}, { status: "available" }],
        [
          "a sold-out pet",
          "evt_soldout",
          { status: "pending", pendingCause: "sold-out" },
          {},
          { status: "available", pendingCause: undefined },
        ],
        [
          "a held pet",
          "evt_otherwise",
          { status: "pending", pendingCause: "hold" },
          {},
          { status: "pending", pendingCause: "hold" },
        ],
        ["an available pet", "evt_otherwise", {}, {}, { status: "available" }],
        [
          "a sold pet, no restock given",
          "evt_otherwise",
          { status: "sold" },
          { restock: undefined },
          { status: "sold" },
        ],
        [
          "a sold-out pet, no restock given",
          "evt_otherwise",
          { status: "pending", pendingCause: "sold-out" },
          { restock: undefined },
          { status: "pending", pendingCause: "sold-out" },
        ],
      ])("set stock on %s has the consequence %s", async (_, tag, overrides, given, expected) => {
        await pets().insert(aPet({ id: 1, ...overrides }));

        expect((await pets().setStock(setting(given))).pet).toMatchObject({ stock: 5, revision: 2, ...expected });
        expect(await eventIds()).toEqual([tag]);
      });
      it("marks dropped later: by a reservation taking them along or on their own, each only while it is there (a reserve mark by its nonce), each moving its bucket's fence", async () => {
        const marks = [mark(3, "reserve", 1, "n3"), mark(4, "settle", 2), mark(36, "reserve", 1, "n36")];
        await pets().insert(aPet({ id: 1, stock: 5, holdCount: 2, heldUnits: 2, marks }));
        const drops = [
          { orderId: 3, kind: "reserve", nonce: "n3" },
          { orderId: 4, kind: "settle" },
        ] as const;

        // A reservation taking along a drop whose mark is not there (another nonce) is refused whole.
        const refused = await pets().reserve(
          reservation({ drops: [{ orderId: 36, kind: "reserve", nonce: "other" }] }),
        );
        expect(refused).toMatchObject({ applied: false, pet: { stock: 5, marks } });
        expect((await pets().reserve(reservation({ drops }))).pet).toEqual(
          aPet({
            id: 1,
            stock: 3,
            holdCount: 3,
            heldUnits: 4,
            marks: [mark(10, "reserve", 2, "n10"), marks[2]!],
            fences: { 3: 1, 4: 1 },
            revision: 2,
          }),
        );
        // Again (a late copy, or a flush after the ride): the marks are gone, so nothing changes.
        expect(await pets().dropMarks({ petId: 1, drops })).toMatchObject({ applied: false, pet: { revision: 2 } });
        expect(
          (await pets().dropMarks({ petId: 1, drops: [{ orderId: 36, kind: "reserve", nonce: "n36" }] })).pet,
        ).toMatchObject({ marks: [mark(10, "reserve", 2, "n10")], fences: { 3: 1, 4: 2 }, revision: 3 });
        expect(await pets().dropMarks({ petId: 2, drops })).toEqual({ applied: false, pet: undefined });
      });
    });

    describe("stock moves (core/pets/stock-writes.ts over this port)", () => {
      it("reserve takes units and marks the reservation; the last unit makes the pet pending, sold out, in the same write", async () => {
        await pets().insert(aPet({ id: 1, stock: 3 }));

        expect(await reserve(1, 10, 2)).toBe("reserved");
        expect(await pets().ofId(1)).toMatchObject({
          stock: 1,
          status: "available",
          holdCount: 1,
          heldUnits: 2,
          marks: [{ orderId: 10, kind: "reserve", units: 2, nonce: "n10" }],
          revision: 2,
        });
        expect(await reserve(1, 11, 1)).toBe("reserved");
        expect(await pets().ofId(1)).toMatchObject({
          stock: 0,
          status: "pending",
          pendingCause: "sold-out",
          holdCount: 2,
          heldUnits: 3,
          revision: 3,
        });
        expect(await eventTypes()).toEqual(["inventory.changed", "inventory.changed", "pet.status_changed"]);
      });

      it("reserve is idempotent by order id while its mark is there, and explains every refusal", async () => {
        await pets().insert(aPet({ id: 1, stock: 3 }));
        await pets().insert(aPet({ id: 2, stock: 3, status: "pending", pendingCause: "hold" }));
        await pets().insert(aPet({ id: 3, stock: 3, lifecycle: "deleting", provisionalSince: since }));
        await pets().insert(aPet({ id: 4, stock: 3, lifecycle: "creating", provisionalSince: since }));
        await reserve(1, 10, 1);

        expect(await reserve(1, 10, 1, "other attempt")).toBe("already-held");
        expect(await reserve(1, 11, 3)).toBe("insufficient-stock");
        expect(await reserve(2, 12, 1)).toBe("not-available");
        expect(await reserve(3, 13, 1)).toBe("unknown-pet");
        expect(await reserve(4, 14, 1)).toBe("unknown-pet");
        expect(await reserve(5, 15, 1)).toBe("unknown-pet");
        expect(await pets().ofId(1)).toMatchObject({
          stock: 2,
          holdCount: 1,
          marks: [{ orderId: 10, nonce: "n10" }],
          revision: 2,
        });
        expect((await pets().ofId(2))?.revision).toBe(1);
      });

      it("a copy of a reservation landing late is refused once the reservation was kept or undone, whenever it lands", async () => {
        await pets().insert(aPet({ id: 1, stock: 5 }));
        const seen = await pets().ofId(1);
        const copy = reservation({ fence: fenceOf(seen, 10), units: 1 });
        expect((await pets().reserve(copy)).applied).toBe(true);
        expect((await pets().reserve(copy)).applied, "while the mark is there").toBe(false);
        expect((await pets().postReservation({ petId: 1, orderId: 10, nonce: "n10" })).applied).toBe(true);
        expect((await pets().reserve(copy)).applied, "after it was kept").toBe(false);

        const undone = reservation({ orderId: 11, nonce: "n11", units: 1, fence: fenceOf(seen, 11) });
        expect((await pets().reserve(undone)).applied).toBe(true);
        expect((await pets().voidReservation({ petId: 1, orderId: 11, nonce: "n11", units: 1, ...back })).applied).toBe(
          true,
        );
        expect((await pets().reserve(undone)).applied, "after it was undone").toBe(false);
        expect(await pets().ofId(1)).toMatchObject({ stock: 4, holdCount: 1, heldUnits: 1, marks: [] });
      });

      it("reserve is atomic: 200 concurrent single-unit orders for 50 in stock, exactly 50 held, pending once", async () => {
        await pets().insert(aPet({ id: 1, stock: 50 }));

        const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => reserve(1, 100 + i, 1)));

        expect(outcomes.filter((o) => o === "reserved")).toHaveLength(50);
        expect(outcomes.every((o) => ["reserved", "insufficient-stock", "not-available"].includes(o))).toBe(true);
        expect(await pets().ofId(1)).toMatchObject({
          stock: 0,
          status: "pending",
          holdCount: 50,
          heldUnits: 50,
          revision: 51,
        });
        expect((await eventTypes()).filter((t) => t === "pet.status_changed")).toHaveLength(1);
      });

      it("a kept reservation loses its mark only for its own attempt's nonce; an undone one gives its units back once", async () => {
        await pets().insert(aPet({ id: 1, stock: 2 }));
        await reserve(1, 10, 2);

        expect(await postReservation(pets(), 1, 10, "someone else")).toBe(false);
        expect(await voidReservation(pets(), clock, 1, 10, 2, "someone else")).toBe(false);
        expect(await voidReservation(pets(), clock, 1, 10, 2, "n10")).toBe(true);
        expect(await voidReservation(pets(), clock, 1, 10, 2, "n10")).toBe(false);
        expect(await pets().ofId(1)).toMatchObject({
          stock: 2,
          status: "available",
          pendingCause: undefined,
          holdCount: 0,
          heldUnits: 0,
          marks: [],
        });

        await reserve(1, 11, 1);
        expect(await postReservation(pets(), 1, 11, "n11")).toBe(true);
        expect(await postReservation(pets(), 1, 11, "n11")).toBe(false);
        expect(await pets().ofId(1)).toMatchObject({ stock: 1, holdCount: 1, heldUnits: 1, marks: [] });
      });

      it("a release applies once while its fence holds, leaves a settle mark, and a sold-out pet is available again", async () => {
        await pets().insert(
          aPet({ id: 1, stock: 0, status: "pending", pendingCause: "sold-out", holdCount: 2, heldUnits: 3 }),
        );

        expect((await applySettlement(pets(), clock, "release", order(10, 2), 1)).outcome).toBe("fence-moved");
        expect((await applySettlement(pets(), clock, "release", order(10, 2), 0)).outcome).toBe("applied");
        expect((await applySettlement(pets(), clock, "release", order(10, 2), 0)).outcome).toBe("applied");
        expect(await pets().ofId(1)).toMatchObject({
          stock: 2,
          status: "available",
          pendingCause: undefined,
          holdCount: 1,
          heldUnits: 1,
          marks: [{ orderId: 10, kind: "settle" }],
        });
        expect((await applySettlement(pets(), clock, "release", order(10, 2, 9), 0)).outcome).toBe("no-pet");

        await clearSettleMark(pets(), 1, 10);
        // The mark is gone, and with it the fence the late actor read: it cannot apply a second time.
        expect((await applySettlement(pets(), clock, "release", order(10, 2), 0)).outcome).toBe("fence-moved");
        expect(await pets().ofId(1)).toMatchObject({ stock: 2, holdCount: 1, marks: [], fences: { 10: 1 } });
      });

      it("a settlement keeping its order's reserve mark drops it in the same write, by its nonce; a copy of it later is refused", async () => {
        await pets().insert(aPet({ id: 1, stock: 3 }));
        await reserve(1, 10, 2);
        const owned = { ...order(10, 2), reservation: "n10" };

        // Without keeping it, refused while the mark is there; keeping another nonce's, refused too.
        expect((await applySettlement(pets(), clock, "release", owned, 0)).outcome).toBe("reserve-marked");
        expect((await applySettlement(pets(), clock, "release", owned, 0, undefined, "n9")).outcome).toBe(
          "reserve-marked",
        );
        expect((await applySettlement(pets(), clock, "release", owned, 0, undefined, "n10")).outcome).toBe("applied");
        const settled = { stock: 3, holdCount: 0, heldUnits: 0, marks: [{ orderId: 10, kind: "settle" }] };
        expect(await pets().ofId(1)).toMatchObject({ ...settled, fences: { 10: 1 } });

        const copy = {
          ...settlement("release", { orderId: 10, units: 2 }),
          reservation: "n10",
          drops: [{ orderId: 10, kind: "reserve", nonce: "n10" }] as const,
        };
        expect(await pets().applySettlement(copy)).toMatchObject({ applied: false, pet: settled });
        await clearSettleMark(pets(), 1, 10);
        expect(await pets().applySettlement(copy)).toMatchObject({ applied: false, pet: { stock: 3, marks: [] } });
      });

      it("a release keeps a staff hold, and a consumption of the last holding order at stock 0 makes a sold-out pet sold", async () => {
        await pets().insert(
          aPet({ id: 1, stock: 0, status: "pending", pendingCause: "hold", holdCount: 1, heldUnits: 1 }),
        );
        await pets().insert(
          aPet({ id: 2, stock: 0, status: "pending", pendingCause: "sold-out", holdCount: 2, heldUnits: 3 }),
        );

        await applySettlement(pets(), clock, "release", order(10, 1, 1), 0);
        expect(await pets().ofId(1)).toMatchObject({ stock: 1, status: "pending", pendingCause: "hold", holdCount: 0 });

        await applySettlement(pets(), clock, "consume", order(11, 1, 2), 0);
        expect(await pets().ofId(2)).toMatchObject({
          stock: 0,
          status: "pending",
          pendingCause: "sold-out",
          holdCount: 1,
          heldUnits: 2,
        });
        await applySettlement(pets(), clock, "consume", order(12, 2, 2), 0);
        expect(await pets().ofId(2)).toMatchObject({
          stock: 0,
          status: "sold",
          pendingCause: undefined,
          holdCount: 0,
          heldUnits: 0,
        });
        expect((await eventTypes()).filter((t) => t === "pet.status_changed")).toHaveLength(1);
      });

      it("concurrent settlements of many orders count every unit, each once", async () => {
        await pets().insert(
          aPet({ id: 1, stock: 0, status: "pending", pendingCause: "sold-out", holdCount: 30, heldUnits: 60 }),
        );
        const orders = Array.from({ length: 30 }, (_, i) => order(i + 1, 2));

        const results = await Promise.all(
          [...orders, ...orders].map((o) => applySettlement(pets(), clock, "release", o, 0)),
        );

        expect(results.every((r) => r.outcome === "applied")).toBe(true);
        expect(await pets().ofId(1)).toMatchObject({ stock: 60, status: "available", holdCount: 0, heldUnits: 0 });
        expect((await pets().ofId(1))?.marks).toHaveLength(30);
      });

      it("set stock: above 0 a sold or sold-out pet is available again, a staff hold stays; revision and limit checked", async () => {
        await pets().insert(aPet({ id: 1, status: "sold" }));
        await pets().insert(aPet({ id: 2, status: "pending", pendingCause: "hold", revision: 3 }));
        await pets().insert(aPet({ id: 3, status: "pending", pendingCause: "sold-out", holdCount: 1, heldUnits: 4 }));

        expect((await pets().setStock(stockSetting(clock, 1, 0))).pet).toMatchObject({ stock: 0, status: "sold" });
        expect((await pets().setStock(stockSetting(clock, 1, 4))).pet).toMatchObject({ stock: 4, status: "available" });
        expect((await pets().setStock(stockSetting(clock, 2, 4, 2))).applied).toBe(false);
        expect((await pets().setStock(stockSetting(clock, 2, 4, 3))).pet).toMatchObject({
          stock: 4,
          status: "pending",
          pendingCause: "hold",
          revision: 4,
        });
        expect((await pets().setStock(stockSetting(clock, 3, MAX_STOCK - 3))).applied).toBe(false);
        expect((await pets().setStock(stockSetting(clock, 3, MAX_STOCK - 4))).pet).toMatchObject({
          stock: MAX_STOCK - 4,
          status: "available",
          pendingCause: undefined,
        });
      });
    });
  });
};
