import type { EventFeed, PendingEvent } from "../../core/webhooks/event-feed.port.ts";

/**
 * A stand-in for the outbox (docs/decisions/outbox-in-the-same-write.md): events appended by a test, read in order,
 * removed when acknowledged (idempotently). Like the memory store's, it wakes its watchers on each event recorded,
 * unless made `silent` (as MongoDB's outbox, which only a poll reads). `onRead` runs after each read, before it returns.
 */
export class MemoryEventFeed implements EventFeed {
  readonly #pending: PendingEvent[] = [];
  readonly #watchers = new Set<() => void>();
  #next = 1;
  onRead: () => void = () => {};

  readonly #silent: boolean;

  constructor(options: { silent?: boolean } = {}) {
    this.#silent = options.silent ?? false;
  }

  record(type: string, data: unknown, occurredAt: Date): PendingEvent {
    const event = { id: `evt_${String(this.#next++).padStart(6, "0")}`, type, occurredAt, data };
    this.#pending.push(event);
    if (!this.#silent) for (const wake of this.#watchers) wake();
    return event;
  }

  async pending(limit: number): Promise<PendingEvent[]> {
    const read = this.#pending.slice(0, limit).map((e) => ({ ...e }));
    this.onRead();
    return read;
  }

  watch(wake: () => void): () => void {
    this.#watchers.add(wake);
    return () => this.#watchers.delete(wake);
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
