import { describe, expect, it } from "vitest";
import { MemoryEventLog } from "../../adapters/memory/memory-event-log.ts";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import { EVENT_LOG_RETENTION_MS } from "../../core/events/event-log.port.ts";

const event = (n: number): DomainEvent => ({
  id: `evt_${n}`,
  type: "inventory.changed",
  occurredAt: new Date(Date.UTC(2026, 10, 21)),
  data: { petId: n, delta: -1 },
});

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
});
