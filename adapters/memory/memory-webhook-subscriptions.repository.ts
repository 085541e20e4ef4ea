import type { PageRequest } from "../../core/shared/page.ts";
import type { WebhookEventType } from "../../core/webhooks/webhook-event.ts";
import type { WebhookSecret, WebhookSubscription } from "../../core/webhooks/webhook-subscription.ts";
import type { WebhookSubscriptions } from "../../core/webhooks/webhook-subscriptions.port.ts";
import { pageOf } from "./memory-paging.ts";

export class MemoryWebhookSubscriptions implements WebhookSubscriptions {
  readonly #subscriptions = new Map<number, WebhookSubscription>();

  async add(subscription: WebhookSubscription): Promise<void> {
    this.#subscriptions.set(subscription.id, structuredClone(subscription));
  }

  async ofId(id: number): Promise<WebhookSubscription | undefined> {
    const found = this.#subscriptions.get(id);
    return found && structuredClone(found);
  }

  async list(page: PageRequest): Promise<WebhookSubscription[]> {
    return pageOf(this.#subscriptions.values(), page);
  }

  async listeningTo(type: WebhookEventType): Promise<WebhookSubscription[]> {
    return pageOf(this.#subscriptions.values(), { limit: Number.MAX_SAFE_INTEGER }, (s) => s.events.includes(type));
  }

  async replaceSecrets(id: number, expectedCurrent: string, secrets: WebhookSecret[]): Promise<boolean> {
    const found = this.#subscriptions.get(id);
    if (found?.secrets[0]?.value !== expectedCurrent) return false;
    found.secrets = structuredClone(secrets);
    return true;
  }

  async remove(id: number): Promise<boolean> {
    return this.#subscriptions.delete(id);
  }
}
