import type { Lease, Settlement, WebhookMessage } from "../../core/webhooks/webhook-message.ts";
import type { WebhookMessages } from "../../core/webhooks/webhook-messages.port.ts";

interface Entry {
  message: WebhookMessage;
  lease: Lease | undefined;
  /** Delivered and failed messages are kept until then, so a relay repeated after a crash finds them. */
  expiresAt: Date | undefined;
}

const KEPT_MS = 7 * 24 * 60 * 60 * 1000;

export class MemoryWebhookMessages implements WebhookMessages {
  readonly #entries = new Map<string, Entry>();

  async enqueue(messages: readonly WebhookMessage[]): Promise<void> {
    for (const message of messages) {
      if (!this.#entries.has(message.id)) this.#entries.set(message.id, { message: structuredClone(message), lease: undefined, expiresAt: undefined });
    }
  }

  async claimDue(now: Date, lease: Lease, limit: number): Promise<WebhookMessage[]> {
    for (const [id, entry] of this.#entries) if (entry.expiresAt && entry.expiresAt < now) this.#entries.delete(id);
    const due = [...this.#entries.values()]
      .filter((e) => e.message.state === "pending" && e.message.nextAttemptAt <= now && (!e.lease || e.lease.until <= now))
      .sort((a, b) => a.message.nextAttemptAt.getTime() - b.message.nextAttemptAt.getTime())
      .slice(0, limit);
    for (const entry of due) entry.lease = { ...lease };
    return due.map((e) => structuredClone(e.message));
  }

  async settle(id: string, owner: string, settlement: Settlement): Promise<boolean> {
    const entry = this.#entries.get(id);
    if (!entry || entry.lease?.owner !== owner) return false;
    entry.lease = undefined;
    if (settlement.state === "pending") {
      entry.message = { ...entry.message, attempts: settlement.attempts, nextAttemptAt: settlement.nextAttemptAt };
    } else {
      entry.message = { ...entry.message, state: settlement.state, attempts: settlement.attempts };
      entry.expiresAt = new Date(Date.now() + KEPT_MS);
    }
    return true;
  }

  async ofId(id: string): Promise<WebhookMessage | undefined> {
    const entry = this.#entries.get(id);
    return entry && structuredClone(entry.message);
  }

  async removeForSubscription(subscriptionId: number): Promise<void> {
    for (const [id, entry] of this.#entries) if (entry.message.subscriptionId === subscriptionId) this.#entries.delete(id);
  }
}
