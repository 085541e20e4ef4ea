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
        await orders().cancel({ orderId: 2, at: at("2026-11-21T12:05:00.000Z"), nonce: "a-nonce", events: [] }),
      ).toMatchObject({
        order: { settling: at("2026-11-21T12:05:00.000Z") },
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
      await orders().cancel({ orderId: 1, at: at("2026-11-21T12:00:00.000Z"), nonce: "a-nonce", events: [] });
      await orders().settled(1);
      expect(await orders().ofId(1)).toBeUndefined();
    });

    it("keeps a removed order's id taken for good: a late copy of its insert is refused and brings nothing back", async () => {
      await orders().insert(anOrder({ id: 1 }));
      await orders().cancel({ orderId: 1, at: at("2026-11-21T12:00:00.000Z"), nonce: "a-nonce", events: [] });
      await orders().settled(1);
      await orders().insert(anOrder({ id: 2, petId: 10, state: "complete" }));
      await orders().removeAllOfPet(10);

      expect(await orders().insert(anOrder({ id: 1 }))).toBe(false);
      expect(await orders().insert(anOrder({ id: 2, petId: 10 }))).toBe(false);
      expect(await orders().ofId(1)).toBeUndefined();
      expect(await orders().ofId(2)).toBeUndefined();
      expect(await orders().list({ limit: 10 })).toEqual([]);
      expect(await orders().list({ petId: 10, limit: 10 })).toEqual([]);
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

    describe("the conditional writes", () => {
      const settlingAt = at("2026-11-21T12:30:00.000Z");
      const shipped = at("2026-12-01T10:00:00.250Z");
      const writes = {
        cancel: (orderId: number, expectedRevision?: number) =>
          orders().cancel({ orderId, expectedRevision, at: settlingAt, nonce: "a-nonce", events: [anEvent(1)] }),
        complete: (orderId: number, expectedRevision?: number) =>
          orders().complete({
            orderId,
            expectedRevision,
            at: settlingAt,
            shipDate: shipped,
            nonce: "a-nonce",
            events: [anEvent(1)],
          }),
        changeShipDate: (orderId: number, expectedRevision?: number) =>
          orders().changeShipDate({ orderId, expectedRevision, shipDate: shipped, events: [anEvent(1)] }),
      };

      const settlingWrites = [
        { name: "cancel", state: "cancelled", shipDate: undefined },
        { name: "complete", state: "complete", shipDate: shipped },
      ] as const;
      for (const { name, state, shipDate } of settlingWrites) {
        it(`${name}: open → ${state}, settling from \`at\`, closed by its nonce, revision + 1, its events in the same write`, async () => {
          await orders().insert(anOrder({ id: 1, revision: 3, shipDate: undefined }));

          const written = await writes[name](1, 3);

          const after = anOrder({ id: 1, state, shipDate, revision: 4, settling: settlingAt, closedBy: "a-nonce" });
          expect(written).toEqual({ applied: true, order: after });
          expect(await orders().ofId(1)).toEqual(after);
          expect(await orders().settlingBefore(settlingAt, { limit: 10 })).toEqual([after]);
          expect(await stores().outbox.pending(10)).toEqual([anEvent(1)]);
        });
      }

      it("changeShipDate: sets or removes the ship date, the order open and not settling, revision + 1", async () => {
        await orders().insert(anOrder({ id: 1, shipDate: undefined }));

        const set = await orders().changeShipDate({ orderId: 1, shipDate: shipped, events: [] });
        expect(set).toEqual({ applied: true, order: anOrder({ id: 1, shipDate: shipped, revision: 2 }) });
        const removed = await orders().changeShipDate({
          orderId: 1,
          expectedRevision: 2,
          shipDate: undefined,
          events: [anEvent(3)],
        });
        expect(removed).toEqual({ applied: true, order: anOrder({ id: 1, shipDate: undefined, revision: 3 }) });
        expect(await orders().ofId(1)).toEqual(anOrder({ id: 1, shipDate: undefined, revision: 3 }));
        expect(await orders().settlingBefore(settlingAt, { limit: 10 })).toEqual([]);
        expect(await stores().outbox.pending(10)).toEqual([anEvent(3)]);
      });

      for (const [name, write] of Object.entries(writes)) {
        it(`${name} is refused, writing nothing, unless the order is open at the expected revision: the order as it is`, async () => {
          const others = (["complete", "cancelled", "abandoned"] as const).map((state, i) =>
            anOrder({ id: i + 1, state, revision: 3 }),
          );
          for (const order of others) await orders().insert(order);
          await orders().insert(anOrder({ id: 4, revision: 3 }));

          for (const order of others) expect(await write(order.id)).toEqual({ applied: false, order });
          expect(await write(4, 2)).toEqual({ applied: false, order: anOrder({ id: 4, revision: 3 }) });
          expect(await write(9)).toEqual({ applied: false, order: undefined });
          for (const order of others) expect(await orders().ofId(order.id)).toEqual(order);
          expect(await orders().ofId(4)).toEqual(anOrder({ id: 4, revision: 3 }));
          expect(await orders().ofId(9)).toBeUndefined();
          expect(await orders().settlingBefore(settlingAt, { limit: 10 })).toEqual([]);
          expect(await stores().outbox.pending(10)).toEqual([]);

          expect(await write(4, 3)).toMatchObject({ applied: true, order: { id: 4, revision: 4 } });
        });
      }

      it("lets exactly one of many concurrent cancellations and completions of an order win", async () => {
        await orders().insert(anOrder({ id: 1 }));

        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? writes.cancel(1) : writes.complete(1))),
        );

        const applied = results.filter((r) => r.applied);
        expect(applied).toHaveLength(1);
        expect(await orders().ofId(1)).toEqual(applied[0]!.order);
        expect(applied[0]!.order.revision).toBe(2);
        expect(await stores().outbox.pending(10)).toEqual([anEvent(1)]);
      });

      it("hands out copies: changing what a write returned changes nothing stored", async () => {
        await orders().insert(anOrder({ id: 1 }));
        const written = await writes.complete(1);
        if (!written.applied) throw new Error("the completion was refused");

        written.order.shipDate!.setUTCFullYear(2000);
        written.order.settling!.setUTCFullYear(2000);

        expect(await orders().ofId(1)).toMatchObject({ shipDate: shipped, settling: settlingAt });
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
      expect((await orders().list({ limit: 10 })).map((o) => o.id)).toEqual([3]);
    });
  });
};
