export interface PendingEvent {
  id: string;
  type: string;
  occurredAt: Date;
  data: unknown;
}

/** What webhook delivery reads of the `Outbox` (core/events). */
export interface EventFeed {
  pending(limit: number): Promise<PendingEvent[]>;
  acknowledge(eventIds: readonly string[]): Promise<void>;
  /** Until the returned function is called; a feed without it is polled. */
  watch?(wake: () => void): () => void;
}
