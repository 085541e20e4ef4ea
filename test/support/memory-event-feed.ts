import type { EventFeed, PendingEvent } from "../../core/webhooks/event-feed.port.ts";

/**
 * A stand-in for the outbox (CONSISTENCY-DESIGN.md §4): events appended by a test, read in order, removed when
 * acknowledged (idempotently).
 */
export class MemoryEventFeed implements EventFeed {
  readonly #pending: PendingEvent[] = [];
  #next = 1;

  record(type: string, data: unknown, occurredAt: Date): PendingEvent {
    const event = { id: `evt_${String(this.#next++).padStart(6, "0")}`, type, occurredAt, data };
    this.#pending.push(event);
    return event;
  }

  async pending(limit: number): Promise<PendingEvent[]> {
    return this.#pending.slice(0, limit).map((e) => ({ ...e }));
  }

  async acknowledge(eventIds: readonly string[]): Promise<void> {
    for (const id of eventIds) {
      const index = this.#pending.findIndex((e) => e.id === id);
      if (index >= 0) this.#pending.splice(index, 1);
    }
  }

  get size(): number {
    return this.#pending.length;
  }
}
