import type { PageRequest } from "../shared/page.ts";
import type { WebhookSecret, WebhookSubscription } from "./webhook-subscription.ts";
import type { WebhookEventType } from "./webhook-event.ts";

export interface WebhookSubscriptions {
  add(subscription: WebhookSubscription): Promise<void>;
  ofId(id: number): Promise<WebhookSubscription | undefined>;
  list(page: PageRequest): Promise<WebhookSubscription[]>;
  listeningTo(type: WebhookEventType): Promise<WebhookSubscription[]>;
  /** One write, only while the newest secret is `expectedCurrent`; false otherwise. */
  replaceSecrets(id: number, expectedCurrent: string, secrets: WebhookSecret[]): Promise<boolean>;
  /** False when it was not there. */
  remove(id: number): Promise<boolean>;
}
