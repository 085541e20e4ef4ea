import { notFound } from "../shared/domain-error.ts";
import type { WebhookSubscription } from "./webhook-subscription.ts";
import type { WebhookSubscriptions } from "./webhook-subscriptions.port.ts";

export class GetWebhookSubscription {
  readonly #webhooks: WebhookSubscriptions;
  constructor(webhooks: WebhookSubscriptions) {
    this.#webhooks = webhooks;
  }

  async execute(id: number): Promise<WebhookSubscription> {
    const subscription = await this.#webhooks.ofId(id);
    if (!subscription) throw notFound("Webhook subscription", id);
    return subscription;
  }
}
