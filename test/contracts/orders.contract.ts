import { describe, expect, it } from "vitest";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";
import { anOrder, at, everything } from "./mothers.ts";

const anEvent = (n: number): DomainEvent => ({
  type: "order.completed",
  data: { id: 1, petId: 1, quantity: 1, shipDate: "2026-11-21T12:34:56.789Z", complete: true },
  id: `evt_${n}`,
  occurredAt: at(`2026-11-21T12:00:0${n}.000Z`),
});

export const ordersContract = (harness: ContractHarness): void => {
  describe(`Orders contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const orders = () => stores().orders;
    const idsOf = (list: { id: number }[]) => list.map((o) => o.id);

    it("gives back what was inserted, dates to the millisecond, in any state; undefined for an unknown id", async () => {
      const placing = anOrder({
        id: 1,
        petId: 4,
        quantity: 3,
        shipDate: at("2026-12-24T17:45:12.345Z"),
        placedBy: 9,
        state: "abandoned",
      });
      await orders().insert(placing);
      await orders().insert(anOrder({ id: 2, shipDate: undefined, state: "cancelled", revision: 7 }));

      expect(await orders().ofId(1)).toEqual(placing);
      expect((await orders().ofId(1))?.shipDate?.getTime()).toBe(Date.parse("2026-12-24T17:45:12.345Z"));
      expect(await orders().ofId(2)).toEqual(anOrder({ id: 2, shipDate: undefined, state: "cancelled", revision: 7 }));
      expect(await orders().ofId(3)).toBeUndefined();
    });

    it("refuses a second insert of the same id: false, and nothing written", async () => {
      expect(await orders().insert(anOrder({ id: 1 }))).toBe(true);
      expect(await orders().insert(anOrder({ id: 1, quantity: 9, state: "abandoned" }), [anEvent(1)])).toBe(false);
      expect((await orders().ofId(1))?.quantity).toBe(1);
      expect(await stores().outbox.pending(10)).toEqual([]);
    });

    it("lets exactly one of many concurrent inserts of one id win", async () => {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => orders().insert(anOrder({ id: 1, quantity: i + 1 }))),
      );

      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await orders().ofId(1))?.quantity).toBe(results.indexOf(true) + 1);
    });

    it("records the events given with an insert", async () => {
      await orders().insert(anOrder({ id: 1 }), [anEvent(1), anEvent(2)]);

      expect(await stores().outbox.pending(10)).toEqual([anEvent(1), anEvent(2)]);
    });

    it("stores and returns copies", async () => {
      const inserted = anOrder({ id: 1 });
      await orders().insert(inserted);
      inserted.shipDate!.setUTCFullYear(2000);
      const read = await orders().ofId(1);
      read!.createdAt.setUTCFullYear(2000);
      read!.state = "complete";

      expect(await orders().ofId(1)).toEqual(anOrder({ id: 1 }));
    });

    it("lists the orders still settling since a cutoff, ascending id, and forgets one once settled", async () => {
      await orders().insert(anOrder({ id: 1, state: "complete", settling: at("2026-11-21T12:00:00.000Z") }));
      await orders().insert(anOrder({ id: 2 }));
      await orders().insert(anOrder({ id: 3, state: "complete", settling: at("2026-11-21T12:10:00.000Z") }));
      expect(
        await orders().write(2, { state: "open" }, { state: "cancelled", settling: at("2026-11-21T12:05:00.000Z") }),
      ).toMatchObject({
        settling: at("2026-11-21T12:05:00.000Z"),
      });

      const cutoff = at("2026-11-21T12:05:00.000Z");
      expect((await orders().settlingBefore(cutoff, { limit: 10 })).map((o) => o.id)).toEqual([1, 2]);
      expect((await orders().settlingBefore(cutoff, { limit: 1, after: 1 })).map((o) => o.id)).toEqual([2]);

      await orders().settled(1);
      await orders().settled(1);
      expect(await orders().ofId(1)).toMatchObject({ state: "complete", settling: undefined });
      expect((await orders().settlingBefore(at("2026-11-21T13:00:00.000Z"), { limit: 10 })).map((o) => o.id)).toEqual([
        2, 3,
      ]);
    });

    it("removes a settled cancelled order once its events are relayed, and keeps it while it is settling", async () => {
      await orders().insert(anOrder({ id: 1 }));
      await orders().write(1, { state: "open" }, { state: "cancelled", settling: at("2026-11-21T12:00:00.000Z") });
      await orders().settled(1);
      expect(await orders().ofId(1)).toBeUndefined();
    });

    describe("list", () => {
      it("shows open and complete orders only, ascending id, with after and limit", async () => {
        await orders().insert(anOrder({ id: 1 }));
        await orders().insert(anOrder({ id: 2, state: "abandoned" }));
        await orders().insert(anOrder({ id: 3, state: "complete" }));
        await orders().insert(anOrder({ id: 4, state: "cancelled" }));
        await orders().insert(anOrder({ id: 5 }));

        expect(idsOf(await orders().list({ limit: 2 }))).toEqual([1, 3]);
        expect(idsOf(await orders().list({ limit: 2, after: 3 }))).toEqual([5]);
      });

      it("filters by completion, pet and placing key, alone and together", async () => {
        await orders().insert(anOrder({ id: 1, petId: 10, placedBy: 100 }));
        await orders().insert(anOrder({ id: 2, petId: 10, placedBy: 200, state: "complete" }));
        await orders().insert(anOrder({ id: 3, petId: 20, placedBy: 100, state: "complete" }));
        await orders().insert(anOrder({ id: 4, petId: 10, placedBy: 100, state: "complete" }));
        await orders().insert(anOrder({ id: 5, petId: 10, placedBy: 100, state: "abandoned" }));

        expect(idsOf(await orders().list({ ...everything, complete: true }))).toEqual([2, 3, 4]);
        expect(idsOf(await orders().list({ ...everything, complete: false }))).toEqual([1]);
        expect(idsOf(await orders().list({ ...everything, petId: 10 }))).toEqual([1, 2, 4]);
        expect(idsOf(await orders().list({ ...everything, placedBy: 100 }))).toEqual([1, 3, 4]);
        expect(idsOf(await orders().list({ ...everything, complete: true, petId: 10, placedBy: 100 }))).toEqual([4]);
      });
    });

    describe("list newest first", () => {
      it("pages in descending id order below `after`, with every filter", async () => {
        for (const id of [1, 2, 3, 4, 5])
          await orders().insert(anOrder({ id, petId: id % 2 === 0 ? 10 : 20, placedBy: 100 }));
        await orders().insert(anOrder({ id: 6, state: "cancelled" }));

        expect(idsOf(await orders().list({ limit: 2, sort: "-id" }))).toEqual([5, 4]);
        expect(idsOf(await orders().list({ limit: 2, sort: "-id", after: 4 }))).toEqual([3, 2]);
        expect(idsOf(await orders().list({ limit: 9, sort: "-id", after: 2 }))).toEqual([1]);
        expect(idsOf(await orders().list({ ...everything, sort: "-id", petId: 10 }))).toEqual([4, 2]);
        expect(idsOf(await orders().list({ ...everything, sort: "-id", placedBy: 100, after: 5 }))).toEqual([
          4, 3, 2, 1,
        ]);
      });
    });

    describe("write", () => {
      it("changes state and ship date while the state is the expected one, revision + 1, and returns the order", async () => {
        await orders().insert(anOrder({ id: 1, state: "cancelled", shipDate: undefined }));

        const open = await orders().write(1, { state: "cancelled" }, { state: "open" });
        expect(open).toEqual(anOrder({ id: 1, state: "open", shipDate: undefined, revision: 2 }));
        const shipped = await orders().write(1, { state: "open" }, { shipDate: at("2026-12-01T10:00:00.250Z") });
        expect(shipped).toEqual(anOrder({ id: 1, shipDate: at("2026-12-01T10:00:00.250Z"), revision: 3 }));
        const unshipped = await orders().write(1, { state: "open" }, { state: "complete", shipDate: "none" });
        expect(unshipped).toEqual(anOrder({ id: 1, state: "complete", shipDate: undefined, revision: 4 }));
        expect(await orders().ofId(1)).toEqual(unshipped);
      });

      it("does nothing and returns undefined when the state or the revision differs, or the order is missing", async () => {
        await orders().insert(anOrder({ id: 1, state: "complete", revision: 3 }));
        await orders().insert(anOrder({ id: 2, revision: 3 }));

        expect(await orders().write(1, { state: "open" }, { state: "cancelled" })).toBeUndefined();
        expect(await orders().write(2, { state: "open", revision: 2 }, { state: "cancelled" })).toBeUndefined();
        expect(await orders().write(9, { state: "open" }, { state: "cancelled" })).toBeUndefined();
        expect(await orders().ofId(1)).toEqual(anOrder({ id: 1, state: "complete", revision: 3 }));
        expect(await orders().ofId(2)).toEqual(anOrder({ id: 2, revision: 3 }));
        expect(await orders().ofId(9)).toBeUndefined();
        expect(await orders().write(2, { state: "open", revision: 3 }, { state: "cancelled" })).toMatchObject({
          state: "cancelled",
          revision: 4,
        });
      });

      it("lets exactly one of many concurrent conditional writes win", async () => {
        await orders().insert(anOrder({ id: 1 }));

        const results = await Promise.all(
          Array.from({ length: 10 }, () => orders().write(1, { state: "open" }, { state: "complete" })),
        );

        expect(results.filter((r) => r !== undefined)).toHaveLength(1);
        expect((await orders().ofId(1))?.revision).toBe(2);
      });

      it("records events in the same write, and none when the condition fails", async () => {
        await orders().insert(anOrder({ id: 1 }));

        await orders().write(1, { state: "open" }, { state: "complete", events: [anEvent(1)] });
        await orders().write(1, { state: "open" }, { state: "cancelled", events: [anEvent(2)] });

        expect(await stores().outbox.pending(10)).toEqual([anEvent(1)]);
      });
    });

    it("removes every order of a pet, abandoned tombstones aside, and no other", async () => {
      await orders().insert(anOrder({ id: 1, petId: 10, state: "complete" }));
      await orders().insert(anOrder({ id: 2, petId: 10, state: "abandoned" }));
      await orders().insert(anOrder({ id: 3, petId: 20 }));
      await orders().insert(anOrder({ id: 4, petId: 10, state: "cancelled" }));

      await orders().removeAllOfPet(10);

      const left = await Promise.all([1, 2, 3, 4].map((id) => orders().ofId(id)));
      expect(left.map((o) => o?.id)).toEqual([undefined, 2, 3, undefined]);
      await expect(orders().removeAllOfPet(10)).resolves.toBeUndefined();
    });
  });
};
