import type { WebhookEventType } from "./webhook-event.ts";

export type MessageState = "pending" | "delivered" | "failed";

/** One event for one subscription; its id (the `webhook-id` header) derives from both, so a relay stores it once. */
export interface WebhookMessage {
  id: string;
  subscriptionId: number;
  eventId: string;
  type: WebhookEventType;
  /** The exact body sent on every attempt: `{ type, timestamp, data }`. */
  payload: string;
  state: MessageState;
  /** Attempts made so far. */
  attempts: number;
  nextAttemptAt: Date;
  createdAt: Date;
}

export const messageIdOf = (eventId: string, subscriptionId: number): string =>
  `msg_${eventId.replace(/^evt_/, "")}_${subscriptionId}`;

/** A claim on a message: only the holder of an unexpired lease sends it. */
export interface Lease {
  owner: string;
  until: Date;
}

/** What an attempt decided: delivered, failed for good, or another attempt at `nextAttemptAt`. */
export type Settlement =
  { state: "delivered" | "failed"; attempts: number } | { state: "pending"; attempts: number; nextAttemptAt: Date };
