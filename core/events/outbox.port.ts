import type { DomainEvent } from "./domain-event.ts";

/** Events recorded on pet and order documents; acknowledging is idempotent, so relays may overlap. */
export interface Outbox {
  /** Oldest first (by time, then id). */
  pending(limit: number): Promise<DomainEvent[]>;
  acknowledge(ids: readonly string[]): Promise<void>;
  /** Only a store that sees every write offers it. */
  watch?(wake: () => void): () => void;
}
