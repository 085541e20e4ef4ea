import type { DomainEvent } from "./domain-event.ts";

/**
 * The events recorded on pet and order documents and not yet acknowledged. A relay (webhooks) reads a batch,
 * delivers it and acknowledges it; acknowledging is idempotent, so several relays may run at once (at-least-once).
 */
export interface Outbox {
  /** Up to `limit` pending events, oldest first (by time, then id). */
  pending(limit: number): Promise<DomainEvent[]>;
  /** Removes the events with these ids; unknown ids are ignored. */
  acknowledge(ids: readonly string[]): Promise<void>;
  /**
   * Calls `wake` after each write that records events, until the returned function is called. Only a store that sees
   * every write can offer it (the memory store); a relay of any other is woken by its poll alone.
   */
  watch?(wake: () => void): () => void;
}
