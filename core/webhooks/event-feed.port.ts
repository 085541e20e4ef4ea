/** An event recorded in the same write as its change, not yet relayed. */
export interface PendingEvent {
  /** Unique, `evt_…`, assigned by the core when the event is recorded. */
  id: string;
  type: string;
  occurredAt: Date;
  data: unknown;
}

/**
 * The part of the outbox (`Outbox` in core/events) that webhook delivery reads; events are acknowledged only after
 * their messages are stored.
 */
export interface EventFeed {
  pending(limit: number): Promise<PendingEvent[]>;
  acknowledge(eventIds: readonly string[]): Promise<void>;
  /** Calls `wake` when events may be pending, until the returned function is called; a feed without it is polled. */
  watch?(wake: () => void): () => void;
}
