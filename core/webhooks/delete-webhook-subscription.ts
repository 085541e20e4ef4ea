import { notFound } from "../shared/domain-error.ts";
import type { DeliveryAttempts } from "./delivery-attempts.port.ts";
import type { WebhookMessages } from "./webhook-messages.port.ts";
import type { WebhookSubscriptions } from "./webhook-subscriptions.port.ts";

interface Ports {
  webhooks: WebhookSubscriptions;
  webhookMessages: WebhookMessages;
  deliveryAttempts: DeliveryAttempts;
}

// The subscription goes first, so nothing is sent to it once this answers.
export class DeleteWebhookSubscription {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(id: number): Promise<void> {
    const { webhooks, webhookMessages, deliveryAttempts } = this.#ports;
    if (!(await webhooks.remove(id))) throw notFound("Webhook subscription", id);
    await webhookMessages.removeForSubscription(id);
    await deliveryAttempts.removeForSubscription(id);
  }
}
