import type { DomainEvent } from "./domain-event.ts";

export type LoggedEvent = DomainEvent & {
  position: number;
};

export interface EventLogPage {
  events: LoggedEvent[];
  /** Where the next `readAfter` resumes. */
  last: number;
}

/** Where a log stands: what a reader resuming from a position it names can be told. */
export interface EventLogBounds {
  /** Positions at or below it never belonged to this log: they come from another one (a memory log before a restart). */
  origin: number;
  /** The oldest position kept; `end + 1` when none is. */
  oldest: number;
  /** The last position handed out (its event may still be on its way). */
  end: number;
}

/** Relayed events in append order, for readers that resume; gaps and retention: docs/consistency.md#event-log. */
export interface EventLog {
  /** Idempotent by event id. */
  append(events: readonly DomainEvent[]): Promise<void>;
  /** Position 0 reads from the oldest kept. */
  readAfter(position: number, limit: number): Promise<EventLogPage>;
  bounds(): Promise<EventLogBounds>;
}

export const EVENT_LOG_SETTLE_MS = 10_000;
export const EVENT_LOG_RETENTION_MS = 24 * 60 * 60 * 1000;
