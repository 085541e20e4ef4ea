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
  /**
   * Pass it to the next `readAfter`: the last position this read got past (its last event's, or that of a gap it
   * skipped), or the position it was given when it got past nothing.
   */
  last: number;
}

/**
 * Every event the relay took off the hot documents, in the order it was appended, kept for a bounded time (see
 * docs/consistency.md, "Event log"). A reader keeps the `last` of its previous read and never sees an event twice
 * or misses one that is still kept.
 *
 * Positions are allocated before the events are written, so with several relays appending at once a later position
 * may become visible before an earlier one. A read stops before such a gap while the first event after it is younger
 * than `EVENT_LOG_SETTLE_MS`, and skips it after that: an append writes its events within that time of taking
 * their positions, or they are lost to readers already past them.
 */
export interface EventLog {
  /**
   * Appends the events not in the log yet (by id), in the order given. Idempotent: an event appended twice, by two
   * relays or again after a crash, is kept once, at one position.
   */
  append(events: readonly DomainEvent[]): Promise<void>;
  /** Up to `limit` events after `position` (0: from the oldest kept). */
  readAfter(position: number, limit: number): Promise<EventLogPage>;
}

/** How long a read waits for a position allocated before a visible one (see EventLog). */
export const EVENT_LOG_SETTLE_MS = 10_000;
/** How long the log keeps an event (by the wall clock of its append). */
export const EVENT_LOG_RETENTION_MS = 24 * 60 * 60 * 1000;
