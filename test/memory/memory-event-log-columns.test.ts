import { describe, expect, it } from "vitest";
import { MemoryEventLog } from "../../adapters/memory/memory-event-log.ts";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import { orderData, stampEvent } from "../../core/events/event-stamp.ts";

const at = new Date("2026-11-27T09:00:00.123Z");
const stamped: DomainEvent[] = [
  stampEvent(at, "order.placed", orderData({ id: 7, petId: 3, quantity: 2, shipDate: undefined }, false)),
  stampEvent(
    at,
    "order.completed",
    orderData({ id: 7, petId: 3, quantity: 2, shipDate: new Date("2027-01-02T03:04:05.006Z") }, true),
  ),
  stampEvent(at, "order.cancelled", orderData({ id: 8, petId: 3, quantity: 1, shipDate: undefined }, false)),
  stampEvent(at, "pet.status_changed", { petId: 3, from: "available", to: "pending" }),
  stampEvent(at, "inventory.changed", { petId: 3, delta: -2 }),
  stampEvent(at, "inventory.changed", { petId: 3, quantity: 40 }),
];
const withoutPosition = (events: readonly (DomainEvent & { position: number })[]) =>
  events.map(({ position: _, ...event }) => event);

describe("memory event log: events kept in columns", () => {
  it("gives back every kind of stamped event as it was appended, its data's fields in the same order", async () => {
    const log = new MemoryEventLog();
    await log.append(stamped);

    const read = withoutPosition((await log.readAfter(0, 10)).events);
    expect(read).toEqual(stamped);
    expect(JSON.stringify(read)).toBe(JSON.stringify(stamped));
  });

  it("keeps events of other shapes or ids as they are, in their place among the others", async () => {
    const odd: DomainEvent[] = [
      { id: "evt_not_stamped_here", type: "inventory.changed", occurredAt: at, data: { petId: 1, delta: -1 } },
      { ...stamped[4]!, id: stamped[4]!.id.replace(/.$/, "x") },
      stampEvent(at, "inventory.changed", { petId: 1, delta: -1, note: "extra" } as never),
      stampEvent(at, "order.placed", {
        ...orderData({ id: 1, petId: 1, quantity: 1, shipDate: undefined }, false),
        shipDate: "2027-01-01T00:00:00Z",
      }),
      stampEvent(new Date(at.getTime() + 1), "pet.status_changed", {
        petId: 1,
        from: "available",
        to: "gone",
      } as never),
    ];
    const log = new MemoryEventLog();
    await log.append([stamped[0]!, ...odd, stamped[5]!]);

    expect(withoutPosition((await log.readAfter(0, 10)).events)).toEqual([stamped[0], ...odd, stamped[5]]);
  });

  it("keeps a repeated event once, whether it was kept in columns or as it is", async () => {
    const kept = stampEvent(at, "inventory.changed", { petId: 1, delta: -1, note: "extra" } as never);
    const log = new MemoryEventLog();
    await log.append([stamped[0]!, kept, stamped[1]!]);
    await log.append([stamped[0]!, kept, stamped[1]!, stamped[2]!]);

    expect((await log.readAfter(0, 10)).events.map((e) => e.id)).toEqual(
      [stamped[0]!, kept, stamped[1]!, stamped[2]!].map((e) => e.id),
    );
  });

  it("reuses its slots once past its limit, the newest kept", async () => {
    const log = new MemoryEventLog({ limit: 4 });
    const many = Array.from({ length: 11 }, (_, i) => stampEvent(at, "inventory.changed", { petId: i, delta: -1 }));
    for (const event of many) await log.append([event]);

    const page = await log.readAfter(0, 10);
    expect(withoutPosition(page.events)).toEqual(many.slice(-4));
    expect(page.events.map((e) => e.position)).toEqual([8, 9, 10, 11]);
  });
});
