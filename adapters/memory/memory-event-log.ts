import type { DomainEvent } from "../../core/events/domain-event.ts";
import {
  EVENT_LOG_RETENTION_MS,
  type EventLog,
  type EventLogPage,
  type LoggedEvent,
} from "../../core/events/event-log.port.ts";
import { copyEvent } from "./memory-pending-events.ts";

interface Entry {
  event: LoggedEvent;
  appendedAt: number;
}

/** The memory store's log keeps at most this many events, besides the retention time: it lives in the heap. */
export const MEMORY_EVENT_LOG_LIMIT = 10_000;

/**
 * Positions are handed out and written in one synchronous step, so they are visible in order and without gaps: a
 * read never waits. The oldest events go once they are older than the retention time or more than the limit.
 */
export class MemoryEventLog implements EventLog {
  /** Those before `#head` are cleared as they go, so the log holds no more than it keeps. */
  #entries: (Entry | undefined)[] = [];
  /** Index in `#entries` of the oldest kept. */
  #head = 0;
  readonly #ids = new Set<string>();
  #lastPosition = 0;
  readonly #limit: number;
  readonly #now: () => number;

  constructor(options: { limit?: number; now?: () => number } = {}) {
    this.#limit = options.limit ?? MEMORY_EVENT_LOG_LIMIT;
    this.#now = options.now ?? Date.now;
  }

  async append(events: readonly DomainEvent[]): Promise<void> {
    const appendedAt = this.#now();
    for (const event of events) {
      if (this.#ids.has(event.id)) continue;
      this.#ids.add(event.id);
      this.#entries.push({ event: { ...copyEvent(event), position: ++this.#lastPosition }, appendedAt });
    }
    this.#trim(appendedAt);
  }

  async readAfter(position: number, limit: number): Promise<EventLogPage> {
    this.#trim(this.#now());
    const entries = this.#entries;
    if (this.#head === entries.length) return { events: [], last: position };
    // Positions are consecutive from the oldest kept on.
    const first = entries[this.#head]!.event.position;
    const from = this.#head + Math.max(0, position + 1 - first);
    const events = entries
      .slice(from, from + Math.max(0, limit))
      .map((e) => ({ ...copyEvent(e!.event), position: e!.event.position }));
    return { events, last: events.at(-1)?.position ?? position };
  }

  #trim(now: number): void {
    const entries = this.#entries;
    while (
      this.#head < entries.length &&
      (entries.length - this.#head > this.#limit || entries[this.#head]!.appendedAt < now - EVENT_LOG_RETENTION_MS)
    ) {
      this.#ids.delete(entries[this.#head]!.event.id);
      entries[this.#head] = undefined;
      this.#head++;
    }
    if (this.#head > 1024 && this.#head > entries.length / 2) {
      this.#entries = entries.slice(this.#head);
      this.#head = 0;
    }
  }
}
