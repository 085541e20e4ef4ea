import { lookahead, toPage, type Page, type PageRequest } from "../shared/page.ts";
import type { WebhookSubscription } from "./webhook-subscription.ts";
import type { WebhookSubscriptions } from "./webhook-subscriptions.port.ts";

export class ListWebhookSubscriptions {
  readonly #webhooks: WebhookSubscriptions;
  constructor(webhooks: WebhookSubscriptions) {
    this.#webhooks = webhooks;
  }

  async execute(page: PageRequest): Promise<Page<WebhookSubscription>> {
    return toPage(await this.#webhooks.list(lookahead(page)), page, (s) => s.id);
  }
}
