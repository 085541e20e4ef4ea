import type { WebhookEventType } from "./webhook-event.ts";

/** A rotated-out secret keeps signing until `expiresAt`. */
export interface WebhookSecret {
  value: string;
  expiresAt: Date | undefined;
}

export interface WebhookSubscription {
  id: number;
  url: string;
  events: WebhookEventType[];
  description: string | undefined;
  /** Newest first; stored as issued, since signing needs the secret itself. */
  secrets: WebhookSecret[];
  createdAt: Date;
}

export interface NewWebhookSubscription {
  url: string;
  events: WebhookEventType[];
  description?: string | undefined;
}

export const signingSecrets = (subscription: WebhookSubscription, now: Date): string[] =>
  subscription.secrets.filter((s) => s.expiresAt === undefined || s.expiresAt > now).map((s) => s.value);
