import type { DomainEvent } from "./domain-event.ts";

/** An event as the log keeps it: the event, and its place in the log. */
export type LoggedEvent = DomainEvent & {
  /** Its place in the log: positive, unique, and larger than that of every event appended before it was. */
  position: number;
};

/** One read of the log: the events found, and where the next read resumes. */
export interface EventLogPage {
  /** By position, ascending; each position at most once. */
  events: LoggedEvent[];
  /** The position to pass to the next `readAfter`. */
  last: number;
}

/**
 * Relayed events in append order, kept for a bounded time; a reader resuming from its `last` never sees one twice or
 * misses one still kept (gaps: docs/consistency.md, "Event log").
 */
export interface EventLog {
  /** Appends the events not in the log yet, in order; idempotent by event id. */
  append(events: readonly DomainEvent[]): Promise<void>;
  /** Up to `limit` events after `position` (0: from the oldest kept). */
  readAfter(position: number, limit: number): Promise<EventLogPage>;
}

/** How long a read waits for a position allocated before a visible one (see EventLog). */
export const EVENT_LOG_SETTLE_MS = 10_000;
/** How long the log keeps an event (by the wall clock of its append). */
export const EVENT_LOG_RETENTION_MS = 24 * 60 * 60 * 1000;
