import { describe, expect, it } from "vitest";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import { createMemoryStores } from "../../adapters/memory/memory-stores.ts";
import { anOrder, aPet, at, recordEvents } from "../contracts/mothers.ts";

const stockEvent = (id: string): DomainEvent => ({
  type: "inventory.changed",
  data: { petId: 1, delta: -1 },
  id,
  occurredAt: at("2026-11-26T12:00:00.000Z"),
});
const orderEvent = (id: string): DomainEvent => ({
  type: "order.placed",
  data: { id: 1, petId: 1, quantity: 1, complete: false },
  id,
  occurredAt: at("2026-11-26T12:00:00.000Z"),
});

describe("the memory outbox's watchers (the webhook worker's wake-up)", () => {
  it("are called after each write that records events, pets' and orders', and only then", async () => {
    const stores = createMemoryStores();
    const calls: string[] = [];
    stores.outbox.watch!(() => calls.push("woken"));
    await stores.pets.insert(aPet({ id: 1 }));
    await stores.pets.edit({ petId: 1, fields: { name: "Rex" }, checkedStatus: "available", events: [] });
    expect(calls).toEqual([]);

    await stores.pets.edit({
      petId: 1,
      fields: { name: "Rex" },
      checkedStatus: "available",
      events: [stockEvent("evt_a"), stockEvent("evt_b")],
    });
    expect(calls).toHaveLength(1);
    await stores.orders.insert(anOrder({ id: 1 }), [orderEvent("evt_c")]);
    expect(calls).toHaveLength(2);
    await stores.orders.insert(anOrder({ id: 2 }));
    await stores.orders.complete({ orderId: 2, at: new Date(0), shipDate: new Date(0), nonce: "a-nonce", events: [] });
    expect(calls).toHaveLength(2);
    await stores.orders.complete({
      orderId: 1,
      at: new Date(0),
      shipDate: new Date(0),
      nonce: "a-nonce",
      events: [orderEvent("evt_d")],
    });
    expect(calls).toHaveLength(3);
    // A refused conditional write records nothing.
    await stores.orders.cancel({ orderId: 1, at: new Date(0), nonce: "a-nonce", events: [orderEvent("evt_e")] });
    await stores.pets.edit({ petId: 1, fields: { name: "Rex" }, checkedStatus: "sold", events: [stockEvent("evt_f")] });
    expect(calls).toHaveLength(3);
  });

  it("sees the events recorded when called, and stops being called once it unwatches", async () => {
    const stores = createMemoryStores();
    const seen: string[][] = [];
    let reading: Promise<void> = Promise.resolve();
    const unwatch = stores.outbox.watch!(() => {
      reading = stores.outbox.pending(10).then((events) => void seen.push(events.map((e) => e.id)));
    });
    const other: number[] = [];
    stores.outbox.watch!(() => other.push(1));
    await stores.pets.insert(aPet({ id: 1 }));
    await recordEvents(stores.pets, 1, [stockEvent("evt_a")]);
    await reading;
    expect(seen).toEqual([["evt_a"]]);

    unwatch();
    await recordEvents(stores.pets, 1, [stockEvent("evt_b")]);
    await reading;
    expect(seen).toEqual([["evt_a"]]);
    expect(other).toHaveLength(2);
  });
});
