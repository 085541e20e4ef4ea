import type { Lease, Settlement, WebhookMessage } from "../../core/webhooks/webhook-message.ts";
import type { WebhookMessages } from "../../core/webhooks/webhook-messages.port.ts";

interface Entry {
  message: WebhookMessage;
  lease: Lease | undefined;
  /** Delivered and failed messages are kept until then, so a relay repeated after a crash finds them. */
  expiresAt: Date | undefined;
}

const KEPT_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Besides all messages by id, the pending ones (what a claim looks through) and the settled ones in the order they
 * were settled, which is the order they expire in: a claim looks at the backlog, not at a week of delivered messages.
 */
export class MemoryWebhookMessages implements WebhookMessages {
  readonly #entries = new Map<string, Entry>();
  readonly #pending = new Map<string, Entry>();
  readonly #settled = new Map<string, Entry>();

  async enqueue(messages: readonly WebhookMessage[]): Promise<void> {
    for (const message of messages) {
      if (this.#entries.has(message.id)) continue;
      const entry: Entry = { message: structuredClone(message), lease: undefined, expiresAt: undefined };
      this.#entries.set(message.id, entry);
      if (message.state === "pending") this.#pending.set(message.id, entry);
    }
  }

  async claimDue(now: Date, lease: Lease, limit: number): Promise<WebhookMessage[]> {
    for (const [id, entry] of this.#settled) {
      if (!entry.expiresAt || entry.expiresAt >= now) break;
      this.#settled.delete(id);
      this.#entries.delete(id);
    }
    const due = [...this.#pending.values()]
      .filter((e) => e.message.nextAttemptAt <= now && (!e.lease || e.lease.until <= now))
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
      this.#pending.delete(id);
      this.#settled.set(id, entry);
    }
    return true;
  }

  async settleAll(owner: string, settlements: readonly { id: string; settlement: Settlement }[]): Promise<number> {
    let settled = 0;
    for (const { id, settlement } of settlements) if (await this.settle(id, owner, settlement)) settled += 1;
    return settled;
  }

  async ofId(id: string): Promise<WebhookMessage | undefined> {
    const entry = this.#entries.get(id);
    return entry && structuredClone(entry.message);
  }

  async backlog(limit: number): Promise<{ count: number; oldestCreatedAt: Date | undefined }> {
    // In enqueue order, which is creation order: the first is the oldest.
    const first = this.#pending.values().next();
    return {
      count: Math.min(this.#pending.size, limit),
      oldestCreatedAt: first.done ? undefined : first.value.message.createdAt,
    };
  }

  async removeForSubscription(subscriptionId: number): Promise<void> {
    for (const [id, entry] of this.#entries) {
      if (entry.message.subscriptionId !== subscriptionId) continue;
      this.#entries.delete(id);
      this.#pending.delete(id);
      this.#settled.delete(id);
    }
  }
}
