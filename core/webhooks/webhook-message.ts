import type { WebhookEventType } from "./webhook-event.ts";

export type MessageState = "pending" | "delivered" | "failed";

/** Its id (`webhook-id`) derives from the event and the subscription, so a relay stores it once. */
export interface WebhookMessage {
  id: string;
  subscriptionId: number;
  eventId: string;
  type: WebhookEventType;
  /** `{ type, timestamp, data }`, the same bytes on every attempt. */
  payload: string;
  state: MessageState;
  attempts: number;
  nextAttemptAt: Date;
  createdAt: Date;
}

export const messageIdOf = (eventId: string, subscriptionId: number): string =>
  `msg_${eventId.replace(/^evt_/, "")}_${subscriptionId}`;

export interface Lease {
  owner: string;
  until: Date;
}

export type Settlement =
  { state: "delivered" | "failed"; attempts: number } | { state: "pending"; attempts: number; nextAttemptAt: Date };
