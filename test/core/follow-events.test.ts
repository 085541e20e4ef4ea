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

const ORIGIN = 1_764_000_000_000_000;

describe("FollowEvents", () => {
  it.each([0, 1, 2, 3, 37, 64, 65, 1000])("starts a new reader at the end of a log of %i events", async (count) => {
    for (const origin of [0, ORIGIN]) {
      const log = new MemoryEventLog({ origin });
      for (let n = 1; n <= count; n++) await log.append([event(n)]);
      const follow = new FollowEvents(log);

      const start = await follow.execute(undefined);

      expect(start).toEqual({ from: origin + count });
      await log.append([event(count + 1)]);
      expect((await follow.read(start.from, 10)).events.map((e) => e.id)).toEqual([event(count + 1).id]);
    }
  });

  it("starts a resuming reader where it left off, and at the oldest kept after 0", async () => {
    const log = new MemoryEventLog({ origin: ORIGIN });
    await log.append([event(1), event(2)]);
    expect(await new FollowEvents(log).execute(ORIGIN + 1)).toEqual({ from: ORIGIN + 1 });
    expect(await new FollowEvents(log).execute(ORIGIN + 2)).toEqual({ from: ORIGIN + 2 });
    expect(await new FollowEvents(log).execute(0)).toEqual({ from: 0 });
  });

  it("says `ahead` for a position beyond the log's end, and starts at the end", async () => {
    const log = new MemoryEventLog({ origin: ORIGIN });
    await log.append([event(1), event(2)]);
    expect(await new FollowEvents(log).execute(ORIGIN + 1000)).toEqual({ from: ORIGIN + 2, reset: "ahead" });
  });

  it("says `expired` for a position older than the oldest kept, and starts before the oldest kept", async () => {
    const log = new MemoryEventLog({ origin: ORIGIN, limit: 3 });
    await log.append([1, 2, 3, 4, 5, 6].map(event));
    const follow = new FollowEvents(log);
    expect(await follow.execute(ORIGIN + 1)).toEqual({ from: ORIGIN + 3, reset: "expired" });
    expect(await follow.execute(ORIGIN + 3)).toEqual({ from: ORIGIN + 3 });
    expect((await follow.read(ORIGIN + 3, 10)).events.map((e) => e.id)).toEqual([4, 5, 6].map((n) => event(n).id));
  });

  it("says `unknown_log` for a position of an earlier log (a restart), and replays everything this one holds", async () => {
    const before = new MemoryEventLog({ origin: ORIGIN });
    await before.append([1, 2, 3].map(event));
    const lastSeen = (await before.readAfter(0, 10)).events.at(-1)!.position;

    const after = new MemoryEventLog({ origin: ORIGIN + 60_000_000 });
    await after.append([event(4)]);
    expect(await new FollowEvents(after).execute(lastSeen)).toEqual({
      from: ORIGIN + 60_000_000,
      reset: "unknown_log",
    });
  });
});
