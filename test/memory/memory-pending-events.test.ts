import { describe, expect, it } from "vitest";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import { MemoryPendingEvents } from "../../adapters/memory/memory-pending-events.ts";

const start = Date.parse("2026-11-26T12:00:00.000Z");
/** The `n`th event, `n` ms after start: ids sort like times. */
const anEvent = (n: number): DomainEvent => ({
  id: `evt_${String(n).padStart(4, "0")}`,
  type: "inventory.changed",
  occurredAt: new Date(start + n),
  data: { petId: 1, delta: -1 },
});
const idsOf = (events: MemoryPendingEvents, limit = 1_000) => events.oldest(limit).map((stored) => stored.event.id);

/**
 * One kind's outbox, below the outbox: what each document has pending is counted and kept apart from the queue, so a
 * document is drained once, when its last event goes, and a removed document's events go with it, however they were
 * acknowledged (as handed out, or by id) and however many of a document's events went before.
 */
describe("memory pending events (one kind's outbox)", () => {
  it("drains a document when its last event goes, over several acknowledgements, while others stay pending", () => {
    const events = new MemoryPendingEvents();
    events.add(1, [anEvent(1), anEvent(2), anEvent(3)]);
    events.add(2, [anEvent(4)]);
    const [first, second, third] = events.oldest(3);

    expect(events.acknowledge([first!, second!])).toEqual([]);
    expect(events.acknowledge([first!])).toEqual([]);
    expect(events.acknowledge([third!])).toEqual([1]);
    expect(idsOf(events)).toEqual(["evt_0004"]);
    expect(events.acknowledge([], ["evt_0004"])).toEqual([2]);
    expect(idsOf(events)).toEqual([]);
  });

  it("acknowledges by id and as handed out alike: an event goes once, whichever way comes first", () => {
    const events = new MemoryPendingEvents();
    events.add(1, [anEvent(1), anEvent(2)]);
    events.add(2, [anEvent(3)]);
    // By id first (the index is made), then as handed out, then by id again: each event counts once.
    expect(events.acknowledge([], ["evt_0001", "evt_unknown"])).toEqual([]);
    events.add(1, [anEvent(5)]);
    const handed = events.oldest(10);
    expect(handed.map((stored) => stored.event.id)).toEqual(["evt_0002", "evt_0003", "evt_0005"]);
    expect(events.acknowledge([handed[0]!])).toEqual([]);
    expect(events.acknowledge([], ["evt_0001", "evt_0002"])).toEqual([]);
    expect(events.acknowledge([handed[0]!], ["evt_0005"])).toEqual([1]);
    expect(idsOf(events)).toEqual(["evt_0003"]);
  });
});
