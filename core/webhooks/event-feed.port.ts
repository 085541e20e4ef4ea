/**
 * A domain event recorded in the same write as the change that caused it, not yet relayed. `data` is the public
 * representation (plain JSON) of what changed.
 */
export interface PendingEvent {
  /** Unique, `evt_…`, assigned by the core when the event is recorded. */
  id: string;
  type: string;
  occurredAt: Date;
  data: unknown;
}

/**
 * The part of the outbox (CONSISTENCY-DESIGN.md §4, `Outbox` in core/events) that webhook delivery reads: pending
 * events in the order they were recorded, and their acknowledgement once relayed. Acknowledging is idempotent, and an
 * event is only acknowledged after its messages are stored, so a crash in between relays it again (the messages are
 * keyed by event and subscription, so nothing is doubled).
 */
export interface EventFeed {
  pending(limit: number): Promise<PendingEvent[]>;
  acknowledge(eventIds: readonly string[]): Promise<void>;
  /** Calls `wake` when events may be pending, until the returned function is called; a feed without it is polled. */
  watch?(wake: () => void): () => void;
}
