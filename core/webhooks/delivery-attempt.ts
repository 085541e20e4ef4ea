import type { WebhookEventType } from "./webhook-event.ts";

export interface DeliveryAttempt {
  subscriptionId: number;
  messageId: string;
  type: WebhookEventType;
  /** 1 for the first try. */
  attempt: number;
  at: Date;
  status: number | undefined;
  error: string | undefined;
  /** The start of the answer only. */
  responseBody: string | undefined;
  durationMs: number;
}
