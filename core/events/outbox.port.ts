import type { DomainEvent } from "./domain-event.ts";

/**
 * Events recorded on pet and order documents, not yet acknowledged; acknowledging is idempotent, so relays may overlap.
 */
export interface Outbox {
  /** Up to `limit` pending events, oldest first (by time, then id). */
  pending(limit: number): Promise<DomainEvent[]>;
  /** Removes the events with these ids; unknown ids are ignored. */
  acknowledge(ids: readonly string[]): Promise<void>;
  /** Calls `wake` after each write that records events; only a store that sees every write offers it. */
  watch?(wake: () => void): () => void;
}
