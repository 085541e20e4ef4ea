import type { DomainEvent } from "./domain-event.ts";

export type LoggedEvent = DomainEvent & {
  position: number;
};

export interface EventLogPage {
  events: LoggedEvent[];
  last: number;
}

export interface EventLogBounds {
  origin: number;
  oldest: number;
  end: number;
}

/** Relayed events in append order, for readers that resume: docs/consistency.md#event-log. */
export interface EventLog {
  append(events: readonly DomainEvent[]): Promise<void>;
  readAfter(position: number, limit: number): Promise<EventLogPage>;
  bounds(): Promise<EventLogBounds>;
}

export const EVENT_LOG_RETENTION_MS = 24 * 60 * 60 * 1000;
