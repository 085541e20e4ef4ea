import type { DomainEvent } from "../../core/events/domain-event.ts";
import {
  EVENT_LOG_RETENTION_MS,
  type EventLog,
  type EventLogBounds,
  type EventLogPage,
  type LoggedEvent,
} from "../../core/events/event-log.port.ts";
import { copyEvent } from "./memory-pending-events.ts";

/**
 * Where a new memory log starts: the wall clock's milliseconds times 1,000, so a log started after a restart never
 * hands out a position an earlier process's log did (that would take over 1,000 events a millisecond), and a reader
 * still holding one is told it comes from another log. Far below 2^53 for thousands of years.
 */
export const memoryLogOrigin = (now = Date.now()): number => now * 1_000;

/** The memory store's log keeps at most this many events, besides the retention time. */
export const MEMORY_EVENT_LOG_LIMIT = 10_000;

interface Entry {
  /** A copy no caller holds. */
  readonly event: DomainEvent;
  readonly appendedAt: number;
}

/**
 * Positions are handed out and written in one synchronous step, so they are visible in order and without gaps: a
 * read never waits. The oldest events go once they are older than the retention time or more than the limit.
 */
export class MemoryEventLog implements EventLog {
  readonly #limit: number;
  readonly #now: () => number;
  readonly #origin: number;
  /** Positions `#first` to `#next - 1` are kept; position `p` is in slot `p % #limit`. */
  #first: number;
  #next: number;
  readonly #ring: (Entry | undefined)[];
  /** The ids of the kept events, so that a retried batch is not appended twice. */
  readonly #ids = new Set<string>();

  /** `origin`: positions start above it (memoryLogOrigin, so that no two processes' logs share positions). */
  constructor(options: { limit?: number; now?: () => number; origin?: number } = {}) {
    this.#limit = options.limit ?? MEMORY_EVENT_LOG_LIMIT;
    this.#now = options.now ?? Date.now;
    this.#origin = options.origin ?? 0;
    this.#first = this.#next = this.#origin + 1;
    this.#ring = Array.from({ length: this.#limit }, () => undefined);
  }

  async append(events: readonly DomainEvent[]): Promise<void> {
    const appendedAt = this.#now();
    for (const event of events) {
      if (this.#ids.has(event.id)) continue;
      if (this.#next - this.#first === this.#limit) this.#drop();
      this.#ids.add(event.id);
      this.#ring[this.#next++ % this.#limit] = { event: copyEvent(event), appendedAt };
    }
    this.#trim(appendedAt);
  }

  async readAfter(position: number, limit: number): Promise<EventLogPage> {
    this.#trim(this.#now());
    const from = Math.max(this.#first, position + 1);
    const to = Math.min(this.#next, from + Math.max(0, limit));
    const events: LoggedEvent[] = [];
    for (let p = from; p < to; p++) events.push({ ...copyEvent(this.#ring[p % this.#limit]!.event), position: p });
    return { events, last: events.at(-1)?.position ?? position };
  }

  async bounds(): Promise<EventLogBounds> {
    this.#trim(this.#now());
    return { origin: this.#origin, oldest: this.#first, end: this.#next - 1 };
  }

  #drop(): void {
    const slot = this.#first++ % this.#limit;
    this.#ids.delete(this.#ring[slot]!.event.id);
    this.#ring[slot] = undefined;
  }

  #trim(now: number): void {
    while (this.#first < this.#next && this.#ring[this.#first % this.#limit]!.appendedAt < now - EVENT_LOG_RETENTION_MS)
      this.#drop();
  }
}
