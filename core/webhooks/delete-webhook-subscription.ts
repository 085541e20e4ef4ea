import { notFound } from "../shared/domain-error.ts";
import type { DeliveryAttempts } from "./delivery-attempts.port.ts";
import type { WebhookMessages } from "./webhook-messages.port.ts";
import type { WebhookSubscriptions } from "./webhook-subscriptions.port.ts";

interface Ports {
  webhooks: WebhookSubscriptions;
  webhookMessages: WebhookMessages;
  deliveryAttempts: DeliveryAttempts;
}

/**
 * Removes the subscription first: from then on nothing is sent to it (the delivery worker drops messages whose
 * subscription is gone, including any a relay running at the same moment still stores). Its messages and log
 * are cleaned up after; a crash before that leaves only rows the worker drops and the log's age bound removes.
 */
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
