import type { DeliveryAttempt } from "./delivery-attempt.ts";
import type { DeliveryAttempts } from "./delivery-attempts.port.ts";
import { GetWebhookSubscription } from "./get-webhook-subscription.ts";
import type { WebhookSubscriptions } from "./webhook-subscriptions.port.ts";

interface Ports {
  webhooks: WebhookSubscriptions;
  deliveryAttempts: DeliveryAttempts;
}

export const RECENT_ATTEMPTS = 100;

export class ListWebhookDeliveries {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(subscriptionId: number): Promise<DeliveryAttempt[]> {
    await new GetWebhookSubscription(this.#ports.webhooks).execute(subscriptionId);
    return await this.#ports.deliveryAttempts.recent(subscriptionId, RECENT_ATTEMPTS);
  }
}
