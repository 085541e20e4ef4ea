import type { WebhookEventType } from "./webhook-event.ts";

/** A signing secret: `whsec_` + base64 of random bytes. A rotated-out secret keeps signing until `expiresAt`. */
export interface WebhookSecret {
  value: string;
  expiresAt: Date | undefined;
}

export interface WebhookSubscription {
  id: number;
  url: string;
  events: WebhookEventType[];
  description: string | undefined;
  /** Newest first. Stored as given: signing needs the secret itself, not a hash of it. */
  secrets: WebhookSecret[];
  createdAt: Date;
}

export interface NewWebhookSubscription {
  url: string;
  events: WebhookEventType[];
  description?: string | undefined;
}

/** The secrets that still sign at `now`: the current one and, during a rotation's overlap, the previous one. */
export const signingSecrets = (subscription: WebhookSubscription, now: Date): string[] =>
  subscription.secrets.filter((s) => s.expiresAt === undefined || s.expiresAt > now).map((s) => s.value);
