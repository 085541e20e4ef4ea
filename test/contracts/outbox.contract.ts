import { describe, expect, it } from "vitest";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";
import { anOrder, aPet, at, recordEvents } from "./mothers.ts";

const stockEvent = (id: string, iso: string): DomainEvent => ({
  type: "inventory.changed",
  data: { petId: 1, delta: -1 },
  id,
  occurredAt: at(iso),
});
const orderEvent = (id: string, iso: string): DomainEvent => ({
  type: "order.cancelled",
  data: { id: 1, petId: 1, quantity: 2, complete: false },
  id,
  occurredAt: at(iso),
});

const second = (n: number): string => `2026-11-21T12:00:${String(n).padStart(2, "0")}.000Z`;

export const outboxContract = (harness: ContractHarness): void => {
  describe(`Outbox contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const outbox = () => stores().outbox;

    it("has nothing pending in an empty store", async () => {
      expect(await outbox().pending(10)).toEqual([]);
    });

    it("gives the events of pets and orders oldest first (time, then id), at most `limit`", async () => {
      await stores().pets.insert(aPet({ id: 1 }));
      await stores().orders.insert(anOrder({ id: 1 }));
      await recordEvents(stores().pets, 1, [stockEvent("evt_b", "2026-11-21T12:00:02.000Z")]);
      await stores().orders.cancel({
        orderId: 1,
        at: new Date(0),
        nonce: "a-nonce",
        events: [orderEvent("evt_c", "2026-11-21T12:00:01.000Z")],
      });
      await recordEvents(stores().pets, 1, [stockEvent("evt_a", "2026-11-21T12:00:02.000Z")]);

      expect(await outbox().pending(10)).toEqual([
        orderEvent("evt_c", "2026-11-21T12:00:01.000Z"),
        stockEvent("evt_a", "2026-11-21T12:00:02.000Z"),
        stockEvent("evt_b", "2026-11-21T12:00:02.000Z"),
      ]);
      expect((await outbox().pending(2)).map((e) => e.id)).toEqual(["evt_c", "evt_a"]);
    });

    it("forgets acknowledged events, idempotently, ignoring unknown ids; later events still come", async () => {
      await stores().pets.insert(aPet({ id: 1 }));
      await recordEvents(stores().pets, 1, [
        stockEvent("evt_1", "2026-11-21T12:00:01.000Z"),
        stockEvent("evt_2", "2026-11-21T12:00:02.000Z"),
      ]);

      await outbox().acknowledge(["evt_1", "evt_unknown"]);
      await outbox().acknowledge(["evt_1"]);
      expect((await outbox().pending(10)).map((e) => e.id)).toEqual(["evt_2"]);
      await outbox().acknowledge(["evt_2"]);
      expect(await outbox().pending(10)).toEqual([]);
      await recordEvents(stores().pets, 1, [stockEvent("evt_3", "2026-11-21T12:00:03.000Z")]);
      expect((await outbox().pending(10)).map((e) => e.id)).toEqual(["evt_3"]);
      expect(await stores().pets.ofId(1)).toMatchObject({ id: 1, revision: 3 });
    });

    it("removes a cancelled order's tombstone with its last event, and keeps other orders", async () => {
      await stores().orders.insert(anOrder({ id: 1, state: "cancelled" }), [orderEvent("evt_1", second(1))]);
      await stores().orders.insert(anOrder({ id: 2 }));
      await stores().orders.complete({
        orderId: 2,
        at: new Date(0),
        shipDate: new Date(0),
        nonce: "a-nonce",
        events: [orderEvent("evt_2", second(2))],
      });

      await outbox().acknowledge(["evt_1", "evt_2"]);

      expect(await stores().orders.ofId(1)).toBeUndefined();
      expect(await stores().orders.ofId(2)).toMatchObject({ state: "complete" });
    });

    it("keeps a cancelled order still settling, its events relayed or not, and removes it once settled", async () => {
      const settling = new Date("2026-11-21T12:00:01.000Z");
      for (const id of [1, 2]) {
        await stores().orders.insert(anOrder({ id }));
        await stores().orders.cancel({
          orderId: id,
          at: settling,
          nonce: "a-nonce",
          events: [orderEvent(`evt_${id}`, second(1))],
        });
      }

      await outbox().pending(10);
      await outbox().acknowledge(["evt_1", "evt_2"]);

      // Recovery's work list still has them: their units are not back on the pet yet.
      expect((await stores().orders.settlingBefore(settling, { limit: 10 })).map((o) => o.id)).toEqual([1, 2]);
      await stores().orders.settled(1);
      expect(await stores().orders.ofId(1)).toBeUndefined();
      // Settled before its event is relayed: the relay's acknowledgement removes it.
      await stores().orders.insert(anOrder({ id: 3 }));
      await stores().orders.cancel({
        orderId: 3,
        at: settling,
        nonce: "a-nonce",
        events: [orderEvent("evt_3", second(3))],
      });
      await stores().orders.settled(3);
      expect(await stores().orders.ofId(3)).toMatchObject({ state: "cancelled", settling: undefined });
      await outbox().pending(10);
      await outbox().acknowledge(["evt_3"]);
      expect(await stores().orders.ofId(3)).toBeUndefined();
      expect(await stores().orders.ofId(2)).toMatchObject({ state: "cancelled" });
    });

    it("keeps the events of a pet and of its orders deleted before they were relayed: each is handed out until acknowledged", async () => {
      await stores().pets.insert(aPet({ id: 1 }));
      await stores().pets.insert(aPet({ id: 2 }));
      await recordEvents(stores().pets, 1, [stockEvent("evt_pet", second(1))]);
      await stores().orders.insert(anOrder({ id: 1, state: "complete" }), [orderEvent("evt_placed", second(2))]);
      await stores().orders.insert(anOrder({ id: 2 }));
      await stores().orders.cancel({
        orderId: 2,
        at: new Date(0),
        nonce: "a-nonce",
        events: [orderEvent("evt_gone", second(3))],
      });
      await stores().orders.insert(anOrder({ id: 3, state: "complete" }));
      await stores().orders.insert(anOrder({ id: 4, petId: 2 }), [orderEvent("evt_other", second(4))]);

      await stores().pets.beginDeleting({ petId: 1, since: new Date(0) });
      await stores().orders.removeAllOfPet(1);
      expect(await stores().pets.removeDeleting(1)).toBe(true);

      expect(await stores().pets.ofId(1)).toBeUndefined();
      for (const id of [1, 2, 3]) expect(await stores().orders.ofId(id)).toBeUndefined();
      const ids = ["evt_pet", "evt_placed", "evt_gone", "evt_other"];
      expect((await outbox().pending(10)).map((e) => e.id)).toEqual(ids);
      expect((await outbox().pending(2)).map((e) => e.id)).toEqual(ids.slice(0, 2));
      await outbox().acknowledge(ids.slice(0, 2));
      expect((await outbox().pending(10)).map((e) => e.id)).toEqual(ids.slice(2));
      await outbox().acknowledge(ids);
      expect(await outbox().pending(10)).toEqual([]);
      expect(await stores().orders.ofId(4)).toMatchObject({ state: "open" });
    });

    it("keeps its events from callers: changing an event given to a write, or one handed out, changes nothing pending", async () => {
      await stores().pets.insert(aPet({ id: 1 }));
      const written = stockEvent("evt_1", "2026-11-21T12:00:01.000Z");
      const placed = orderEvent("evt_2", "2026-11-21T12:00:02.000Z");
      await recordEvents(stores().pets, 1, [written]);
      await stores().orders.insert(anOrder({ id: 1 }), [placed]);
      const unchanged = [
        stockEvent("evt_1", "2026-11-21T12:00:01.000Z"),
        orderEvent("evt_2", "2026-11-21T12:00:02.000Z"),
      ];

      for (const event of [written, placed, ...(await outbox().pending(10))]) {
        event.id = `${event.id}_changed`;
        event.occurredAt.setTime(0);
        event.data.petId = 99;
      }
      Object.assign(written, { type: "pet.status_changed" });

      expect(await outbox().pending(10)).toEqual(unchanged);
    });

    it("gives events of one time on many documents by id, whichever documents hold them", async () => {
      for (let n = 1; n <= 6; n++) {
        await stores().pets.insert(aPet({ id: n }));
        await recordEvents(stores().pets, n, [stockEvent(`evt_${10 - n}`, "2026-11-21T12:00:01.000Z")]);
      }

      expect((await outbox().pending(2)).map((e) => e.id)).toEqual(["evt_4", "evt_5"]);
    });

    it("drains a backlog of many documents in the outbox's order, across pets and orders, ties in time broken by id", async () => {
      // Times repeat across documents and collections, the ids of one time run against the documents' ids, some
      // documents hold several events far apart, and writes come in no order of time.
      const written: DomainEvent[] = [];
      for (let n = 1; n <= 24; n++) {
        await stores().pets.insert(aPet({ id: n }));
        await stores().orders.insert(anOrder({ id: n, petId: n }), [
          orderEvent(`evt_o${String(99 - n).padStart(2, "0")}`, second((n * 7) % 12)),
        ]);
        written.push(orderEvent(`evt_o${String(99 - n).padStart(2, "0")}`, second((n * 7) % 12)));
      }
      for (let n = 24; n >= 1; n--) {
        const events = [
          stockEvent(`evt_p${String(99 - n).padStart(2, "0")}`, second((n * 5) % 12)),
          ...(n % 4 === 0 ? [stockEvent(`evt_q${n}`, second(30 + n))] : []),
        ];
        await recordEvents(stores().pets, n, events);
        written.push(...events);
      }
      const expected = [...written]
        .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime() || (a.id < b.id ? -1 : 1))
        .map((e) => e.id);

      expect((await outbox().pending(5)).map((e) => e.id)).toEqual(expected.slice(0, 5));
      const relayed: string[] = [];
      for (let batch = await outbox().pending(4); batch.length > 0; batch = await outbox().pending(4)) {
        relayed.push(...batch.map((e) => e.id));
        await outbox().acknowledge(batch.map((e) => e.id));
      }
      expect(relayed).toEqual(expected);
    });

    it("keeps events written while an acknowledgement runs", async () => {
      await stores().pets.insert(aPet({ id: 1 }));
      await recordEvents(stores().pets, 1, [stockEvent("evt_0", "2026-11-21T12:00:00.000Z")]);

      await Promise.all([
        outbox().acknowledge(["evt_0"]),
        ...Array.from({ length: 10 }, (_, i) =>
          recordEvents(stores().pets, 1, [stockEvent(`evt_${i + 1}`, `2026-11-21T12:00:${String(i + 10)}.000Z`)]),
        ),
      ]);

      expect((await outbox().pending(100)).map((e) => e.id).sort()).toEqual(
        Array.from({ length: 10 }, (_, i) => `evt_${i + 1}`).sort(),
      );
    });
  });
};
