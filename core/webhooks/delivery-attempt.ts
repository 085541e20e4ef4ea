import type { WebhookEventType } from "./webhook-event.ts";

/** One try at delivering a message, as the deliveries log shows it. */
export interface DeliveryAttempt {
  subscriptionId: number;
  messageId: string;
  type: WebhookEventType;
  /** 1 for the first try. */
  attempt: number;
  at: Date;
  /** The receiver's status, when it answered. */
  status: number | undefined;
  /** Why there was no answer (timeout, refused target, connection error), when there was none. */
  error: string | undefined;
  /** The first bytes of the receiver's answer. */
  responseBody: string | undefined;
  /** Milliseconds from sending to the answer or the error. */
  durationMs: number;
}
