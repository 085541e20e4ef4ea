import { describe, expect, it } from "vitest";
import { MemoryEventLog } from "../../adapters/memory/memory-event-log.ts";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import { EVENT_LOG_RETENTION_MS } from "../../core/events/event-log.port.ts";
import { orderData, stampEvent } from "../../core/events/event-stamp.ts";

const event = (n: number): DomainEvent => ({
  id: `evt_${n}`,
  type: "inventory.changed",
  occurredAt: new Date(Date.UTC(2026, 10, 21)),
  data: { petId: n, delta: -1 },
});

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

describe("memory event log retention", () => {
  it("keeps at most its limit: the oldest go, and a reader behind them resumes at the oldest kept", async () => {
    const log = new MemoryEventLog({ limit: 3 });
    await log.append([1, 2, 3, 4, 5].map(event));

    const page = await log.readAfter(0, 10);
    expect(page.events.map((e) => [e.position, e.id])).toEqual([
      [3, "evt_3"],
      [4, "evt_4"],
      [5, "evt_5"],
    ]);
    expect(await log.readAfter(1, 10)).toEqual(page);
  });

  it("lets events go once they are older than the retention time", async () => {
    let now = Date.UTC(2026, 10, 21);
    const log = new MemoryEventLog({ now: () => now });
    await log.append([event(1)]);
    now += EVENT_LOG_RETENTION_MS / 2;
    await log.append([event(2)]);
    now += EVENT_LOG_RETENTION_MS / 2 + 1;

    expect((await log.readAfter(0, 10)).events.map((e) => e.id)).toEqual(["evt_2"]);
  });

  it("reuses its slots once past its limit, the newest kept", async () => {
    const log = new MemoryEventLog({ limit: 4 });
    const many = Array.from({ length: 11 }, (_, i) => stampEvent(at, "inventory.changed", { petId: i, delta: -1 }));
    for (const event of many) await log.append([event]);

    const page = await log.readAfter(0, 10);
    expect(withoutPosition(page.events)).toEqual(many.slice(-4));
    expect(page.events.map((e) => e.position)).toEqual([8, 9, 10, 11]);
  });

  it("forgets the id of an event that went, by the limit or by time, so its ids stay as few as its events", async () => {
    let now = Date.UTC(2026, 10, 21);
    const log = new MemoryEventLog({ limit: 2, now: () => now });
    await log.append([1, 2, 3].map(event));
    await log.append([event(1)]);
    expect((await log.readAfter(0, 10)).events.map((e) => [e.position, e.id])).toEqual([
      [3, "evt_3"],
      [4, "evt_1"],
    ]);

    now += EVENT_LOG_RETENTION_MS + 1;
    expect((await log.readAfter(0, 10)).events).toEqual([]);
    await log.append([event(3)]);
    expect((await log.readAfter(0, 10)).events.map((e) => [e.position, e.id])).toEqual([[5, "evt_3"]]);
  });
});

describe("memory event log: events as appended", () => {
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

  it("keeps a repeated event once, whatever its shape", async () => {
    const odd = stampEvent(at, "inventory.changed", { petId: 1, delta: -1, note: "extra" } as never);
    const log = new MemoryEventLog();
    await log.append([stamped[0]!, odd, stamped[1]!]);
    await log.append([stamped[0]!, odd, stamped[1]!, stamped[2]!]);

    expect((await log.readAfter(0, 10)).events.map((e) => e.id)).toEqual(
      [stamped[0]!, odd, stamped[1]!, stamped[2]!].map((e) => e.id),
    );
  });

  it("hands out copies: neither the appender nor a reader can change what it keeps", async () => {
    const appended = stampEvent(new Date(at), "pet.status_changed", { petId: 3, from: "available", to: "pending" });
    const log = new MemoryEventLog();
    await log.append([appended]);
    const before = withoutPosition((await log.readAfter(0, 10)).events);

    Object.assign(appended.data, { petId: 99 });
    appended.occurredAt.setTime(0);
    const [read] = (await log.readAfter(0, 10)).events;
    Object.assign(read!.data, { to: "sold" });
    read!.occurredAt.setTime(0);

    expect(withoutPosition((await log.readAfter(0, 10)).events)).toEqual(before);
    expect(before[0]!.data).toEqual({ petId: 3, from: "available", to: "pending" });
  });
});
