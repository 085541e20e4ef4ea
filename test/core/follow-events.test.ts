import { describe, expect, it } from "vitest";
import { MemoryEventLog } from "../../adapters/memory/memory-event-log.ts";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import { FollowEvents } from "../../core/events/follow-events.ts";

const event = (n: number): DomainEvent => ({
  id: `evt_${String(n).padStart(6, "0")}`,
  type: "inventory.changed",
  occurredAt: new Date(Date.UTC(2026, 10, 21, 12, 0, n % 60)),
  data: { petId: n, quantity: n },
});

describe("FollowEvents", () => {
  it.each([0, 1, 2, 3, 37, 64, 65, 1000])("starts a new reader at the end of a log of %i events", async (count) => {
    const log = new MemoryEventLog();
    for (let n = 1; n <= count; n++) await log.append([event(n)]);
    const follow = new FollowEvents(log);

    const start = await follow.execute(undefined);

    expect(start).toBe(count);
    await log.append([event(count + 1)]);
    expect((await follow.read(start, 10)).events.map((e) => e.id)).toEqual([event(count + 1).id]);
  });

  it("starts a resuming reader where it left off", async () => {
    const log = new MemoryEventLog();
    await log.append([event(1), event(2)]);
    expect(await new FollowEvents(log).execute(1)).toBe(1);
  });
});
