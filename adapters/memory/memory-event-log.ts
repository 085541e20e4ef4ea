import type { DomainEvent, EventType } from "../../core/events/domain-event.ts";
import { EVENT_LOG_RETENTION_MS, type EventLog, type EventLogPage } from "../../core/events/event-log.port.ts";
import { copyJson } from "./memory-pending-events.ts";

/** The memory store's log keeps at most this many events, besides the retention time: it lives in the heap. */
export const MEMORY_EVENT_LOG_LIMIT = 10_000;

/**
 * Positions are handed out and written in one synchronous step, so they are visible in order and without gaps: a
 * read never waits. The oldest events go once they are older than the retention time or more than the limit.
 * Kept as columns (an event's data is its only object here): every placed order appends two events, and objects
 * that outlive a young collection are what the garbage collector pays for (docs/performance.md).
 */
export class MemoryEventLog implements EventLog {
  /** Index `i` is position `#base + i`; those before `#head` are cleared as they go. */
  #ids: (string | undefined)[] = [];
  #types: (EventType | undefined)[] = [];
  #data: unknown[] = [];
  #occurredAt: number[] = [];
  #appendedAt: number[] = [];
  #base = 1;
  #head = 0;
  /** The greatest id ever appended: a greater one is new without a lookup. */
  #greatest = "";
  readonly #limit: number;
  readonly #now: () => number;

  constructor(options: { limit?: number; now?: () => number } = {}) {
    this.#limit = options.limit ?? MEMORY_EVENT_LOG_LIMIT;
    this.#now = options.now ?? Date.now;
  }

  async append(events: readonly DomainEvent[]): Promise<void> {
    const appendedAt = this.#now();
    for (const event of events) {
      if (event.id > this.#greatest) this.#greatest = event.id;
      else if (this.#keeps(event.id)) continue;
      this.#ids.push(event.id);
      this.#types.push(event.type);
      this.#data.push(copyJson(event.data));
      this.#occurredAt.push(event.occurredAt.getTime());
      this.#appendedAt.push(appendedAt);
    }
    this.#trim(appendedAt);
  }

  async readAfter(position: number, limit: number): Promise<EventLogPage> {
    this.#trim(this.#now());
    const from = Math.max(this.#head, position + 1 - this.#base);
    const to = Math.min(this.#ids.length, from + Math.max(0, limit));
    const events = [];
    for (let i = from; i < to; i++) {
      events.push({
        id: this.#ids[i]!,
        type: this.#types[i]!,
        occurredAt: new Date(this.#occurredAt[i]!),
        data: copyJson(this.#data[i]),
        position: this.#base + i,
      } as EventLogPage["events"][number]);
    }
    return { events, last: events.at(-1)?.position ?? position };
  }

  /**
   * Ids come in increasing order but for a retried batch or a write that lost a race to the relay, so the rare id that
   * does not is looked for among those kept, the newest first (a retried batch is among the newest).
   */
  #keeps(id: string): boolean {
    for (let i = this.#ids.length - 1; i >= this.#head; i--) if (this.#ids[i] === id) return true;
    return false;
  }

  #trim(now: number): void {
    const length = this.#ids.length;
    while (
      this.#head < length &&
      (length - this.#head > this.#limit || this.#appendedAt[this.#head]! < now - EVENT_LOG_RETENTION_MS)
    ) {
      this.#ids[this.#head] = undefined;
      this.#types[this.#head] = undefined;
      this.#data[this.#head] = undefined;
      this.#head++;
    }
    if (this.#head > 1024 && this.#head > length / 2) {
      const head = this.#head;
      this.#ids = this.#ids.slice(head);
      this.#types = this.#types.slice(head);
      this.#data = this.#data.slice(head);
      this.#occurredAt = this.#occurredAt.slice(head);
      this.#appendedAt = this.#appendedAt.slice(head);
      this.#base += head;
      this.#head = 0;
    }
  }
}
