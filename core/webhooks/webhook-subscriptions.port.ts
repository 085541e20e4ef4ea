import type { PageRequest } from "../shared/page.ts";
import type { WebhookSecret, WebhookSubscription } from "./webhook-subscription.ts";
import type { WebhookEventType } from "./webhook-event.ts";

export interface WebhookSubscriptions {
  add(subscription: WebhookSubscription): Promise<void>;
  ofId(id: number): Promise<WebhookSubscription | undefined>;
  /** Ascending id order, at most `limit` items. */
  list(page: PageRequest): Promise<WebhookSubscription[]>;
  /** Every subscription that asked for this event type. */
  listeningTo(type: WebhookEventType): Promise<WebhookSubscription[]>;
  /** Replaces the secrets in one write while the newest one is still `expectedCurrent`; false otherwise. */
  replaceSecrets(id: number, expectedCurrent: string, secrets: WebhookSecret[]): Promise<boolean>;
  /** False when it was not there. */
  remove(id: number): Promise<boolean>;
}
