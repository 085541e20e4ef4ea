import { describe, expect, it } from "vitest";
import type { Mark } from "../../core/pets/pet-record.ts";
import type { PetCondition, PetVariant } from "../../core/pets/pets.port.ts";
import {
  applySettlement,
  clearSettleMark,
  keepReservation,
  MAX_STOCK,
  reserveSeeing,
  setStockVariants,
  undoReservation,
} from "../../core/pets/stock-writes.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";
import { aPet, at, everything } from "./mothers.ts";

export const petsContract = (harness: ContractHarness): void => {
  describe(`Pets contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const pets = () => stores().pets;
    const clock = new ManualClock("2026-11-21T12:00:00.000Z");
    const idsOf = (list: { id: number }[]) => list.map((p) => p.id);
    const since = at("2026-11-21T11:59:59.321Z");
    const eventTypes = async () => (await stores().outbox.pending(1000)).map((e) => e.type);
    const mark = (orderId: number, kind: Mark["kind"], units = 1, nonce?: string): Mark => ({ orderId, kind, units, since, ...(nonce && { nonce }) });
    const reserve = async (petId: number, orderId: number, units: number, nonce = `n${orderId}`) =>
      (await reserveSeeing(pets(), clock, petId, orderId, units, nonce)).outcome;
    const order = (id: number, quantity: number, petId = 1) => ({ id, petId, quantity });

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
      const provisional = aPet({ id: 8, lifecycle: "creating", movingTo: 9, provisionalSince: since, pendingCause: "hold", status: "pending" });
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
      const inserted = aPet({ id: 1, marks: [mark(1, "reserve", 1, "x")], fences: { 1: 1 }, provisionalSince: since, movingTo: 2 });
      await pets().insert(inserted);
      inserted.marks[0]!.units = 9;
      const read = await pets().ofId(1);
      read!.marks.push(mark(2, "settle"));
      read!.provisionalSince!.setUTCFullYear(2000);
      (read!.fences as Record<number, number>)[1] = 5;
      (await pets().ofId(1))!.marks[0]!.since.setUTCFullYear(2001);
      const listed = await pets().list({ limit: 10 });
      listed[0]!.stock = 99;

      expect(await pets().ofId(1)).toEqual(aPet({ id: 1, marks: [mark(1, "reserve", 1, "x")], fences: { 1: 1 }, provisionalSince: since, movingTo: 2 }));
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
        await pets().write(1, [{ when: {}, then: { name: "Bella" } }]);

        expect(idsOf(await pets().list({ ...everything, namePrefix: "rex" }))).toEqual([]);
        expect(idsOf(await pets().list({ ...everything, namePrefix: "bel" }))).toEqual([1]);
      });
    });

    describe("write", () => {
      it("applies the first variant whose condition holds, revision + 1, and returns the pet afterwards", async () => {
        await pets().insert(aPet({ id: 1, stock: 5 }));
        const variants: PetVariant[] = [
          { when: { stock: { gt: 5 } }, then: { name: "never" } },
          { when: { stock: { eq: 5 } }, then: { name: "Max", stock: { by: -2 } } },
        ];

        expect(await pets().write(1, variants)).toEqual({ applied: 1, pet: aPet({ id: 1, name: "Max", stock: 3, revision: 2 }) });
        expect(await pets().ofId(1)).toEqual(aPet({ id: 1, name: "Max", stock: 3, revision: 2 }));
      });

      it("applies nothing when no condition holds, and says how the pet is; undefined for a missing pet", async () => {
        await pets().insert(aPet({ id: 1, stock: 5 }));

        expect(await pets().write(1, [{ when: { stock: { gt: 5 } }, then: { name: "never" } }])).toEqual({ applied: undefined, pet: aPet({ id: 1, stock: 5 }) });
        expect(await pets().write(2, [{ when: {}, then: { name: "never" } }])).toEqual({ applied: undefined, pet: undefined });
        expect(await pets().ofId(2)).toBeUndefined();
      });

      const subject = aPet({
        id: 1,
        status: "pending",
        pendingCause: "sold-out",
        stock: 3,
        revision: 4,
        holdCount: 1,
        heldUnits: 2,
        marks: [mark(7, "reserve", 2, "n7"), mark(8, "settle", 1)],
        fences: { 8: 3 },
        movingTo: 9,
        provisionalSince: since,
      });
      it.each<[string, PetCondition, boolean]>([
        ["lifecycle none", { lifecycle: "none" }, true],
        ["lifecycle creating", { lifecycle: "creating" }, false],
        ["status", { status: "pending" }, true],
        ["other status", { status: "available" }, false],
        ["statusNot other", { statusNot: "sold" }, true],
        ["statusNot own", { statusNot: "pending" }, false],
        ["sold out", { soldOut: true }, true],
        ["not sold out", { soldOut: false }, false],
        ["stock eq", { stock: { eq: 3 } }, true],
        ["stock eq other", { stock: { eq: 2 } }, false],
        ["stock gt below", { stock: { gt: 2 } }, true],
        ["stock gt equal", { stock: { gt: 3 } }, false],
        ["holdCount eq", { holdCount: { eq: 1 } }, true],
        ["holdCount eq 0", { holdCount: { eq: 0 } }, false],
        ["holdCount gt 0", { holdCount: { gt: 0 } }, true],
        ["holdCount gt 1", { holdCount: { gt: 1 } }, false],
        ["held at most its units", { heldAtMost: 2 }, true],
        ["held at most fewer", { heldAtMost: 1 }, false],
        ["reserve mark", { mark: { orderId: 7, kind: "reserve" } }, true],
        ["reserve mark with its nonce", { mark: { orderId: 7, kind: "reserve", nonce: "n7" } }, true],
        ["reserve mark with another nonce", { mark: { orderId: 7, kind: "reserve", nonce: "n8" } }, false],
        ["settle mark where there is a reserve mark", { mark: { orderId: 7, kind: "settle" } }, false],
        ["settle mark", { mark: { orderId: 8, kind: "settle" } }, true],
        ["mark of another order", { mark: { orderId: 9, kind: "reserve" } }, false],
        ["no mark of another order", { noMark: { orderId: 9, kind: "reserve" } }, true],
        ["no settle mark of a reserving order", { noMark: { orderId: 7, kind: "settle" } }, true],
        ["no reserve mark of a reserving order", { noMark: { orderId: 7, kind: "reserve" } }, false],
        ["fence as it is", { fence: { orderId: 8, value: 3 } }, true],
        ["fence of the same bucket", { fence: { orderId: 40, value: 3 } }, true],
        ["fence as it was", { fence: { orderId: 8, value: 2 } }, false],
        ["fence never moved", { fence: { orderId: 9, value: 0 } }, true],
        ["fence never moved, other value", { fence: { orderId: 9, value: 1 } }, false],
        ["revision", { revision: 4 }, true],
        ["other revision", { revision: 3 }, false],
        ["movingTo", { movingTo: 9 }, true],
        ["movingTo none", { movingTo: "none" }, false],
        ["provisionalSince", { provisionalSince: since }, true],
        ["other provisionalSince", { provisionalSince: at("2026-11-21T11:59:59.322Z") }, false],
        ["several parts", { lifecycle: "none", status: "pending", stock: { eq: 3 }, holdCount: { eq: 1 }, revision: 4 }, true],
        ["several parts, one failing", { lifecycle: "none", status: "pending", stock: { eq: 3 }, holdCount: { eq: 2 } }, false],
      ])("condition %s", async (_, when, holds) => {
        await pets().insert(subject);

        const result = await pets().write(1, [{ when, then: { name: "written" } }]);

        expect(result.applied).toBe(holds ? 0 : undefined);
        expect((await pets().ofId(1))?.name).toBe(holds ? "written" : "Rex");
      });

      it("changes every field a change names and nothing else", async () => {
        await pets().insert(aPet({ id: 1, stock: 4, holdCount: 2, heldUnits: 4, marks: [mark(2, "settle"), mark(5, "reserve", 3, "n5")] }));

        await pets().write(1, [
          {
            when: {},
            then: {
              name: "Max",
              categoryId: 3,
              status: "pending",
              pendingCause: "hold",
              stock: { to: 9 },
              held: { orders: 1, units: 2 },
              addMark: mark(4, "reserve", 2, "n4"),
              removeMark: { orderId: 2, kind: "settle" },
              bumpFence: 2,
              lifecycle: "deleting",
              movingTo: 8,
              provisionalSince: since,
            },
          },
        ]);
        expect(await pets().ofId(1)).toEqual(
          aPet({
            id: 1,
            name: "Max",
            categoryId: 3,
            status: "pending",
            pendingCause: "hold",
            stock: 9,
            revision: 2,
            holdCount: 3,
            heldUnits: 6,
            marks: [mark(4, "reserve", 2, "n4"), mark(5, "reserve", 3, "n5")],
            fences: { 2: 1 },
            lifecycle: "deleting",
            movingTo: 8,
            provisionalSince: since,
          }),
        );
        await pets().write(1, [
          {
            when: {},
            then: { stock: { by: -4 }, pendingCause: "none", lifecycle: "none", movingTo: "none", provisionalSince: "none", removeMark: { orderId: 4, kind: "reserve" }, bumpFence: 34 },
          },
        ]);
        expect(await pets().ofId(1)).toEqual(
          aPet({ id: 1, name: "Max", categoryId: 3, status: "pending", stock: 5, revision: 3, holdCount: 3, heldUnits: 6, marks: [mark(5, "reserve", 3, "n5")], fences: { 2: 2 } }),
        );
        expect(idsOf(await pets().withMarks(everything))).toEqual([1]);
        await pets().write(1, [{ when: {}, then: { removeMark: { orderId: 5, kind: "reserve" } } }]);
        expect(idsOf(await pets().withMarks(everything))).toEqual([]);
      });

      it("lets exactly one of many concurrent writes conditional on one revision win", async () => {
        await pets().insert(aPet({ id: 1 }));

        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => pets().write(1, [{ when: { revision: 1 }, then: { name: `Rex ${i}` } }])));

        expect(results.filter((r) => r.applied !== undefined)).toHaveLength(1);
        expect((await pets().ofId(1))?.revision).toBe(2);
      });
    });

    describe("stock moves (core/pets/stock-writes.ts over this port)", () => {
      it("reserve takes units and marks the reservation; the last unit makes the pet pending, sold out, in the same write", async () => {
        await pets().insert(aPet({ id: 1, stock: 3 }));

        expect(await reserve(1, 10, 2)).toBe("reserved");
        expect(await pets().ofId(1)).toMatchObject({ stock: 1, status: "available", holdCount: 1, heldUnits: 2, marks: [{ orderId: 10, kind: "reserve", units: 2, nonce: "n10" }], revision: 2 });
        expect(await reserve(1, 11, 1)).toBe("reserved");
        expect(await pets().ofId(1)).toMatchObject({ stock: 0, status: "pending", pendingCause: "sold-out", holdCount: 2, heldUnits: 3, revision: 3 });
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
        expect(await pets().ofId(1)).toMatchObject({ stock: 2, holdCount: 1, marks: [{ orderId: 10, nonce: "n10" }], revision: 2 });
        expect((await pets().ofId(2))?.revision).toBe(1);
      });

      it("reserve is atomic: 200 concurrent single-unit orders for 50 in stock, exactly 50 held, pending once", async () => {
        await pets().insert(aPet({ id: 1, stock: 50 }));

        const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => reserve(1, 100 + i, 1)));

        expect(outcomes.filter((o) => o === "reserved")).toHaveLength(50);
        expect(outcomes.every((o) => ["reserved", "insufficient-stock", "not-available"].includes(o))).toBe(true);
        expect(await pets().ofId(1)).toMatchObject({ stock: 0, status: "pending", holdCount: 50, heldUnits: 50, revision: 51 });
        expect((await eventTypes()).filter((t) => t === "pet.status_changed")).toHaveLength(1);
      });

      it("a kept reservation loses its mark only for its own attempt's nonce; an undone one gives its units back once", async () => {
        await pets().insert(aPet({ id: 1, stock: 2 }));
        await reserve(1, 10, 2);

        expect(await keepReservation(pets(), 1, 10, "someone else")).toBe(false);
        expect(await undoReservation(pets(), clock, 1, 10, 2, "someone else")).toBe(false);
        expect(await undoReservation(pets(), clock, 1, 10, 2, "n10")).toBe(true);
        expect(await undoReservation(pets(), clock, 1, 10, 2, "n10")).toBe(false);
        expect(await pets().ofId(1)).toMatchObject({ stock: 2, status: "available", pendingCause: undefined, holdCount: 0, heldUnits: 0, marks: [] });

        await reserve(1, 11, 1);
        expect(await keepReservation(pets(), 1, 11, "n11")).toBe(true);
        expect(await keepReservation(pets(), 1, 11, "n11")).toBe(false);
        expect(await pets().ofId(1)).toMatchObject({ stock: 1, holdCount: 1, heldUnits: 1, marks: [] });
      });

      it("a release applies once while its fence holds, leaves a settle mark, and a sold-out pet is available again", async () => {
        await pets().insert(aPet({ id: 1, stock: 0, status: "pending", pendingCause: "sold-out", holdCount: 2, heldUnits: 3 }));

        expect((await applySettlement(pets(), clock, "release", order(10, 2), 1)).outcome).toBe("fence-moved");
        expect((await applySettlement(pets(), clock, "release", order(10, 2), 0)).outcome).toBe("applied");
        expect((await applySettlement(pets(), clock, "release", order(10, 2), 0)).outcome).toBe("applied");
        expect(await pets().ofId(1)).toMatchObject({ stock: 2, status: "available", pendingCause: undefined, holdCount: 1, heldUnits: 1, marks: [{ orderId: 10, kind: "settle" }] });
        expect((await applySettlement(pets(), clock, "release", order(10, 2, 9), 0)).outcome).toBe("no-pet");

        await clearSettleMark(pets(), 1, 10);
        // The mark is gone, and with it the fence the late actor read: it cannot apply a second time.
        expect((await applySettlement(pets(), clock, "release", order(10, 2), 0)).outcome).toBe("fence-moved");
        expect(await pets().ofId(1)).toMatchObject({ stock: 2, holdCount: 1, marks: [], fences: { 10: 1 } });
      });

      it("a release keeps a staff hold, and a consumption of the last holding order at stock 0 makes a sold-out pet sold", async () => {
        await pets().insert(aPet({ id: 1, stock: 0, status: "pending", pendingCause: "hold", holdCount: 1, heldUnits: 1 }));
        await pets().insert(aPet({ id: 2, stock: 0, status: "pending", pendingCause: "sold-out", holdCount: 2, heldUnits: 3 }));

        await applySettlement(pets(), clock, "release", order(10, 1, 1), 0);
        expect(await pets().ofId(1)).toMatchObject({ stock: 1, status: "pending", pendingCause: "hold", holdCount: 0 });

        await applySettlement(pets(), clock, "consume", order(11, 1, 2), 0);
        expect(await pets().ofId(2)).toMatchObject({ stock: 0, status: "pending", pendingCause: "sold-out", holdCount: 1, heldUnits: 2 });
        await applySettlement(pets(), clock, "consume", order(12, 2, 2), 0);
        expect(await pets().ofId(2)).toMatchObject({ stock: 0, status: "sold", pendingCause: undefined, holdCount: 0, heldUnits: 0 });
        expect((await eventTypes()).filter((t) => t === "pet.status_changed")).toHaveLength(1);
      });

      it("concurrent settlements of many orders count every unit, each once", async () => {
        await pets().insert(aPet({ id: 1, stock: 0, status: "pending", pendingCause: "sold-out", holdCount: 30, heldUnits: 60 }));
        const orders = Array.from({ length: 30 }, (_, i) => order(i + 1, 2));

        const results = await Promise.all([...orders, ...orders].map((o) => applySettlement(pets(), clock, "release", o, 0)));

        expect(results.every((r) => r.outcome === "applied")).toBe(true);
        expect(await pets().ofId(1)).toMatchObject({ stock: 60, status: "available", holdCount: 0, heldUnits: 0 });
        expect((await pets().ofId(1))?.marks).toHaveLength(30);
      });

      it("set stock: above 0 a sold or sold-out pet is available again, a staff hold stays; revision and limit checked", async () => {
        await pets().insert(aPet({ id: 1, status: "sold" }));
        await pets().insert(aPet({ id: 2, status: "pending", pendingCause: "hold", revision: 3 }));
        await pets().insert(aPet({ id: 3, status: "pending", pendingCause: "sold-out", holdCount: 1, heldUnits: 4 }));

        expect((await pets().write(1, setStockVariants(clock, 1, 0))).pet).toMatchObject({ stock: 0, status: "sold" });
        expect((await pets().write(1, setStockVariants(clock, 1, 4))).pet).toMatchObject({ stock: 4, status: "available" });
        expect((await pets().write(2, setStockVariants(clock, 2, 4, 2))).applied).toBeUndefined();
        expect((await pets().write(2, setStockVariants(clock, 2, 4, 3))).pet).toMatchObject({ stock: 4, status: "pending", pendingCause: "hold", revision: 4 });
        expect((await pets().write(3, setStockVariants(clock, 3, MAX_STOCK - 3))).applied).toBeUndefined();
        expect((await pets().write(3, setStockVariants(clock, 3, MAX_STOCK - 4))).pet).toMatchObject({ stock: MAX_STOCK - 4, status: "available", pendingCause: undefined });
      });
    });

    it("removes a pet only while the condition holds", async () => {
      await pets().insert(aPet({ id: 1, lifecycle: "deleting", provisionalSince: since }));
      await pets().insert(aPet({ id: 2 }));

      expect(await pets().removeIf(1, { lifecycle: "creating" })).toBe(false);
      expect(await pets().removeIf(1, { lifecycle: "deleting" })).toBe(true);
      expect(await pets().ofId(1)).toBeUndefined();
      expect(await pets().removeIf(1, { lifecycle: "deleting" })).toBe(false);
      expect(await pets().ofId(2)).toBeDefined();
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
