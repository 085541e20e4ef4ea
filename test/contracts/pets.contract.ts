import { describe, expect, it } from "vitest";
import type { PetRecord, WrittenPet } from "../../core/pets/pet-record.ts";
import type { PetCondition, PetVariant } from "../../core/pets/pets.port.ts";
import { consume, release, reserve, setStockVariants } from "../../core/pets/stock-writes.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";
import { aPet, at, everything } from "./mothers.ts";
import { holdsOf, petWithHolds } from "../support/holds.ts";

export const petsContract = (harness: ContractHarness): void => {
  describe(`Pets contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const pets = () => stores().pets;
    const clock = new ManualClock("2026-11-21T12:00:00.000Z");
    const idsOf = (list: { id: number }[]) => list.map((p) => p.id);
    const since = at("2026-11-21T11:59:59.321Z");
    const eventTypes = async () => (await stores().outbox.pending(1000)).map((e) => e.type);
    /** The pet as a write gives it back: its hold count, and the holds of the orders named only. */
    const written = ({ holds, ...rest }: PetRecord, named: number[] = []): WrittenPet => ({
      ...rest,
      holdCount: holds.length,
      namedHolds: holds.filter((h) => named.includes(h.orderId)),
    });

    it("gives back what was inserted, holds and dates included, and undefined for an unknown id", async () => {
      const pet = aPet({ id: 7, name: "Rex", categoryId: 3, status: "pending", revision: 4, stock: 2, holds: [{ orderId: 3, units: 1 }, { orderId: 11, units: 5 }] });
      const provisional = aPet({ id: 8, lifecycle: "creating", movingTo: 9, provisionalSince: since });
      await pets().insert(pet);
      await pets().insert(provisional);

      expect(await petWithHolds(pets(), 7)).toEqual(pet);
      expect(await petWithHolds(pets(), 8)).toEqual(provisional);
      expect(await petWithHolds(pets(), 9)).toBeUndefined();
    });

    it("refuses a second insert of the same id", async () => {
      await pets().insert(aPet({ id: 1 }));
      await expect(pets().insert(aPet({ id: 1, name: "Other" }))).rejects.toThrow();
      expect((await petWithHolds(pets(), 1))?.name).toBe("Rex");
    });

    it("stores and returns copies", async () => {
      const inserted = aPet({ id: 1, holds: [{ orderId: 1, units: 1 }], provisionalSince: since, movingTo: 2 });
      await pets().insert(inserted);
      inserted.holds[0]!.units = 9;
      const read = await petWithHolds(pets(), 1);
      read!.holds.push({ orderId: 2, units: 2 });
      read!.provisionalSince!.setUTCFullYear(2000);
      (await pets().ofId(1))!.provisionalSince!.setUTCFullYear(2001);

      expect(await petWithHolds(pets(), 1)).toEqual(aPet({ id: 1, holds: [{ orderId: 1, units: 1 }], provisionalSince: since, movingTo: 2 }));
    });

    it("reads a pet without its holds: a look at a popular pet does not carry its open orders back", async () => {
      const holds = Array.from({ length: 40 }, (_, i) => ({ orderId: i + 1, units: 1 }));
      const { holds: _, ...withoutHolds } = aPet({ id: 1, holds });
      await pets().insert(aPet({ id: 1, holds }));

      expect(await pets().ofId(1)).toEqual(withoutHolds);
      expect(await holdsOf(pets(), 1)).toEqual(holds);
    });

    it("returns copies of a pet with many holds too", async () => {
      const holds = Array.from({ length: 40 }, (_, i) => ({ orderId: i + 1, units: 1 }));
      await pets().insert(aPet({ id: 1, holds }));
      const read = await petWithHolds(pets(), 1);
      read!.holds.push({ orderId: 99, units: 9 });
      read!.holds[0]!.units = 7;
      const listed = await pets().list({ limit: 10 });
      listed[0]!.stock = 99;

      expect(await holdsOf(pets(), 1)).toEqual(holds);
      expect((await pets().ofId(1))!.stock).toBe(aPet({ id: 1 }).stock);
      expect(read!.holds).toHaveLength(41);
    });

    it("lists a pet without its holds: a page does not carry a popular pet's open orders", async () => {
      const holds = Array.from({ length: 40 }, (_, i) => ({ orderId: i + 1, units: 1, since: new Date(1_700_000_000_000 + i) }));
      await pets().insert(aPet({ id: 1, stock: 3, holds, movingTo: 2, provisionalSince: new Date(1_700_000_000_000) }));
      const [listed] = await pets().list({ limit: 10, ids: [1] });
      const { holds: _holds, ...rest } = aPet({ id: 1, stock: 3, movingTo: 2, provisionalSince: new Date(1_700_000_000_000) });

      expect(listed).toStrictEqual(rest);
      expect(Object.keys(listed!)).not.toContain("holds");
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

        expect(await pets().write(1, variants)).toEqual({ applied: 1, pet: written(aPet({ id: 1, name: "Max", stock: 3, revision: 2 })) });
        expect(await petWithHolds(pets(), 1)).toEqual(aPet({ id: 1, name: "Max", stock: 3, revision: 2 }));
      });

      it("applies nothing when no condition holds, and says how the pet is; undefined for a missing pet", async () => {
        await pets().insert(aPet({ id: 1, stock: 5 }));

        expect(await pets().write(1, [{ when: { stock: { gt: 5 } }, then: { name: "never" } }])).toEqual({ applied: undefined, pet: written(aPet({ id: 1, stock: 5 })) });
        expect(await pets().write(2, [{ when: {}, then: { name: "never" } }])).toEqual({ applied: undefined, pet: undefined });
        expect(await petWithHolds(pets(), 2)).toBeUndefined();
      });

      it("gives back the hold count and the holds of the orders its variants name, not a popular pet's others", async () => {
        const t = (n: number) => new Date(1_700_000_000_000 + n);
        const holds = Array.from({ length: 40 }, (_, i) => ({ orderId: 2 * (i + 1), units: 1, since: t(i) }));
        await pets().insert(aPet({ id: 1, stock: 10, holds }));

        // Named by a condition (hold, noHoldOf) and by a change (addHold, removeHoldOf), applied or not.
        const applied = await pets().write(1, [
          { when: { hold: { orderId: 4, units: 2 } }, then: { name: "never" } },
          { when: { noHoldOf: 3 }, then: { addHold: { orderId: 3, units: 2, since: t(99) }, removeHoldOf: 6, stock: { by: -2 } } },
        ]);
        expect(applied).toEqual({
          applied: 1,
          pet: {
            ...written(aPet({ id: 1, stock: 8, revision: 2 })),
            holdCount: 40,
            namedHolds: [{ orderId: 3, units: 2, since: t(99) }, { orderId: 4, units: 1, since: t(1) }],
          },
        });
        const refused = await pets().write(1, [{ when: { noHoldOf: 8 }, then: { name: "never" } }]);
        expect(refused).toEqual({ applied: undefined, pet: { ...written(aPet({ id: 1, stock: 8, revision: 2 })), holdCount: 40, namedHolds: [holds[3]] } });
        expect((await pets().write(1, [{ when: {}, then: { name: "Max" } }])).pet).toMatchObject({ holdCount: 40, namedHolds: [] });
        // The store still has every hold.
        expect(await holdsOf(pets(), 1)).toHaveLength(40);
      });

      const subject = aPet({ id: 1, status: "pending", stock: 3, revision: 4, holds: [{ orderId: 7, units: 2 }], movingTo: 9, provisionalSince: since });
      it.each<[string, PetCondition, boolean]>([
        ["lifecycle none", { lifecycle: "none" }, true],
        ["lifecycle creating", { lifecycle: "creating" }, false],
        ["status", { status: "pending" }, true],
        ["other status", { status: "available" }, false],
        ["statusNot other", { statusNot: "sold" }, true],
        ["statusNot own", { statusNot: "pending" }, false],
        ["stock eq", { stock: { eq: 3 } }, true],
        ["stock eq other", { stock: { eq: 2 } }, false],
        ["stock gt below", { stock: { gt: 2 } }, true],
        ["stock gt equal", { stock: { gt: 3 } }, false],
        ["hold with its units", { hold: { orderId: 7, units: 2 } }, true],
        ["hold with other units", { hold: { orderId: 7, units: 1 } }, false],
        ["hold of another order", { hold: { orderId: 8, units: 2 } }, false],
        ["no hold of another order", { noHoldOf: 8 }, true],
        ["no hold of a holding order", { noHoldOf: 7 }, false],
        ["holdCount eq", { holdCount: { eq: 1 } }, true],
        ["holdCount eq 0", { holdCount: { eq: 0 } }, false],
        ["holdCount gt 0", { holdCount: { gt: 0 } }, true],
        ["holdCount gt 1", { holdCount: { gt: 1 } }, false],
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
        expect((await petWithHolds(pets(), 1))?.name).toBe(holds ? "written" : "Rex");
      });

      it("changes every field a change names and nothing else", async () => {
        await pets().insert(aPet({ id: 1, stock: 4, holds: [{ orderId: 2, units: 1 }, { orderId: 5, units: 3 }] }));

        await pets().write(1, [{ when: {}, then: { name: "Max", categoryId: 3, status: "pending", stock: { to: 9 }, addHold: { orderId: 4, units: 2 }, removeHoldOf: 2, lifecycle: "deleting", movingTo: 8, provisionalSince: since } }]);
        expect(await petWithHolds(pets(), 1)).toEqual(
          aPet({ id: 1, name: "Max", categoryId: 3, status: "pending", stock: 9, revision: 2, holds: [{ orderId: 4, units: 2 }, { orderId: 5, units: 3 }], lifecycle: "deleting", movingTo: 8, provisionalSince: since }),
        );
        await pets().write(1, [{ when: {}, then: { stock: { by: -4 }, lifecycle: "none", movingTo: "none", provisionalSince: "none", removeHoldOf: 4 } }]);
        expect(await petWithHolds(pets(), 1)).toEqual(aPet({ id: 1, name: "Max", categoryId: 3, status: "pending", stock: 5, revision: 3, holds: [{ orderId: 5, units: 3 }] }));
        expect((await pets().write(1, [{ when: { holdCount: { eq: 1 } }, then: {} }])).applied).toBe(0);
      });

      it("lets exactly one of many concurrent writes conditional on one revision win", async () => {
        await pets().insert(aPet({ id: 1 }));

        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => pets().write(1, [{ when: { revision: 1 }, then: { name: `Rex ${i}` } }])));

        expect(results.filter((r) => r.applied !== undefined)).toHaveLength(1);
        expect((await petWithHolds(pets(), 1))?.revision).toBe(2);
      });
    });

    describe("stock moves (core/pets/stock-writes.ts over this port)", () => {
      it("reserve takes units and holds them for the order; the last unit makes the pet pending in the same write", async () => {
        await pets().insert(aPet({ id: 1, stock: 3 }));

        expect(await reserve(pets(), clock, 1, 10, 2)).toBe("reserved");
        expect(await petWithHolds(pets(), 1)).toMatchObject({ stock: 1, status: "available", holds: [{ orderId: 10, units: 2 }], revision: 2 });
        expect(await reserve(pets(), clock, 1, 11, 1)).toBe("reserved");
        expect(await petWithHolds(pets(), 1)).toMatchObject({ stock: 0, status: "pending", holds: [{ orderId: 10, units: 2 }, { orderId: 11, units: 1 }], revision: 3 });
        expect(await eventTypes()).toEqual(["inventory.changed", "inventory.changed", "pet.status_changed"]);
      });

      it("reserve is idempotent by order id and explains every refusal", async () => {
        await pets().insert(aPet({ id: 1, stock: 3 }));
        await pets().insert(aPet({ id: 2, stock: 3, status: "pending" }));
        await pets().insert(aPet({ id: 3, stock: 3, lifecycle: "deleting", provisionalSince: since }));
        await pets().insert(aPet({ id: 4, stock: 3, lifecycle: "creating", provisionalSince: since }));
        await reserve(pets(), clock, 1, 10, 1);

        expect(await reserve(pets(), clock, 1, 10, 1)).toBe("already-held");
        expect(await reserve(pets(), clock, 1, 11, 3)).toBe("insufficient-stock");
        expect(await reserve(pets(), clock, 2, 12, 1)).toBe("not-available");
        expect(await reserve(pets(), clock, 3, 13, 1)).toBe("unknown-pet");
        expect(await reserve(pets(), clock, 4, 14, 1)).toBe("unknown-pet");
        expect(await reserve(pets(), clock, 5, 15, 1)).toBe("unknown-pet");
        expect(await petWithHolds(pets(), 1)).toMatchObject({ stock: 2, holds: [{ orderId: 10, units: 1 }], revision: 2 });
        expect((await petWithHolds(pets(), 2))?.revision).toBe(1);
      });

      it("reserve is atomic: 200 concurrent single-unit orders for 50 in stock, exactly 50 held, pending once", async () => {
        await pets().insert(aPet({ id: 1, stock: 50 }));

        const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => reserve(pets(), clock, 1, 100 + i, 1)));

        expect(outcomes.filter((o) => o === "reserved")).toHaveLength(50);
        expect(outcomes.every((o) => ["reserved", "insufficient-stock", "not-available"].includes(o))).toBe(true);
        const pet = await petWithHolds(pets(), 1);
        expect(pet).toMatchObject({ stock: 0, status: "pending", revision: 51 });
        expect(pet?.holds).toHaveLength(50);
        expect((await eventTypes()).filter((t) => t === "pet.status_changed")).toHaveLength(1);
      });

      it("release gives a hold back once; from stock 0 a pending pet is available again in the same write", async () => {
        await pets().insert(aPet({ id: 1, stock: 2 }));
        await reserve(pets(), clock, 1, 10, 2);

        expect(await release(pets(), clock, 1, 10, 2)).toBe(true);
        expect(await petWithHolds(pets(), 1)).toMatchObject({ stock: 2, status: "available", holds: [] });
        expect(await release(pets(), clock, 1, 10, 2)).toBe(false);
        expect(await release(pets(), clock, 9, 10, 2)).toBe(false);
        expect(await petWithHolds(pets(), 1)).toMatchObject({ stock: 2, revision: 3 });
      });

      it("release from stock 0 keeps a sold pet sold and a pet with stock left as it is", async () => {
        await pets().insert(aPet({ id: 1, stock: 0, status: "sold", holds: [{ orderId: 10, units: 1 }] }));
        await pets().insert(aPet({ id: 2, stock: 1, status: "pending", holds: [{ orderId: 11, units: 1 }] }));

        await release(pets(), clock, 1, 10, 1);
        await release(pets(), clock, 2, 11, 1);

        expect(await petWithHolds(pets(), 1)).toMatchObject({ stock: 1, status: "sold", holds: [] });
        expect(await petWithHolds(pets(), 2)).toMatchObject({ stock: 2, status: "pending", holds: [] });
      });

      it("concurrent releases of many holds count every unit, each once", async () => {
        const holds = Array.from({ length: 30 }, (_, i) => ({ orderId: i + 1, units: 2 }));
        await pets().insert(aPet({ id: 1, stock: 0, status: "pending", holds }));

        const results = await Promise.all([...holds, ...holds].map((h) => release(pets(), clock, 1, h.orderId, h.units)));

        expect(results.filter(Boolean)).toHaveLength(30);
        expect(await petWithHolds(pets(), 1)).toMatchObject({ stock: 60, status: "available", holds: [] });
      });

      it("consume drops a hold once; the last one at stock 0 makes a pending pet sold in the same write", async () => {
        await pets().insert(aPet({ id: 1, stock: 0, status: "pending", holds: [{ orderId: 10, units: 1 }, { orderId: 11, units: 2 }] }));

        expect(await consume(pets(), clock, 1, 10, 1)).toBe(true);
        expect(await petWithHolds(pets(), 1)).toMatchObject({ stock: 0, status: "pending", holds: [{ orderId: 11, units: 2 }] });
        expect(await consume(pets(), clock, 1, 10, 1)).toBe(false);
        expect(await consume(pets(), clock, 1, 11, 2)).toBe(true);
        expect(await petWithHolds(pets(), 1)).toMatchObject({ stock: 0, status: "sold", holds: [] });
        expect(await eventTypes()).toEqual(["pet.status_changed"]);
      });

      it("consume of the last hold leaves a pet with stock, or not pending, as it is", async () => {
        await pets().insert(aPet({ id: 1, stock: 1, status: "pending", holds: [{ orderId: 10, units: 1 }] }));
        await pets().insert(aPet({ id: 2, stock: 0, status: "available", holds: [{ orderId: 11, units: 1 }] }));

        await consume(pets(), clock, 1, 10, 1);
        await consume(pets(), clock, 2, 11, 1);

        expect(await petWithHolds(pets(), 1)).toMatchObject({ stock: 1, status: "pending", holds: [] });
        expect(await petWithHolds(pets(), 2)).toMatchObject({ stock: 0, status: "available", holds: [] });
      });

      it("set stock: restocking a sold pet above 0 makes it available in the same write; revision checked", async () => {
        await pets().insert(aPet({ id: 1, status: "sold" }));
        await pets().insert(aPet({ id: 2, status: "pending", revision: 3 }));

        expect((await pets().write(1, setStockVariants(clock, 1, 0))).pet).toMatchObject({ stock: 0, status: "sold" });
        expect((await pets().write(1, setStockVariants(clock, 1, 4))).pet).toMatchObject({ stock: 4, status: "available" });
        expect((await pets().write(2, setStockVariants(clock, 2, 4, 2))).applied).toBeUndefined();
        expect((await pets().write(2, setStockVariants(clock, 2, 4, 3))).pet).toMatchObject({ stock: 4, status: "pending", revision: 4 });
      });
    });

    it("removes a pet only while the condition holds", async () => {
      await pets().insert(aPet({ id: 1, lifecycle: "deleting", provisionalSince: since }));
      await pets().insert(aPet({ id: 2 }));

      expect(await pets().removeIf(1, { lifecycle: "creating" })).toBe(false);
      expect(await pets().removeIf(1, { lifecycle: "deleting" })).toBe(true);
      expect(await petWithHolds(pets(), 1)).toBeUndefined();
      expect(await pets().removeIf(1, { lifecycle: "deleting" })).toBe(false);
      expect(await petWithHolds(pets(), 2)).toBeDefined();
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

    it("lists recovery's work: provisional pets and pets with holds, ascending id, paged", async () => {
      await pets().insert(aPet({ id: 1 }));
      await pets().insert(aPet({ id: 2, lifecycle: "creating", provisionalSince: since }));
      await pets().insert(aPet({ id: 3, movingTo: 5, provisionalSince: since, holds: [{ orderId: 1, units: 1 }] }));
      await pets().insert(aPet({ id: 4, lifecycle: "deleting", provisionalSince: since }));
      await pets().insert(aPet({ id: 5, holds: [{ orderId: 2, units: 1 }] }));

      expect(idsOf(await pets().provisional(everything))).toEqual([2, 3, 4]);
      expect(idsOf(await pets().provisional({ limit: 2 }))).toEqual([2, 3]);
      expect(idsOf(await pets().provisional({ limit: 2, after: 3 }))).toEqual([4]);
      expect(idsOf(await pets().withHolds(everything))).toEqual([3, 5]);
      expect(idsOf(await pets().withHolds({ limit: 1, after: 3 }))).toEqual([5]);
    });
  });
};
