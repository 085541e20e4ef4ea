import type { DeliveryAttempt } from "../../core/webhooks/delivery-attempt.ts";
import type { DeliveryAttempts } from "../../core/webhooks/delivery-attempts.port.ts";

/** The newest attempts kept per subscription. */
const KEPT = 100;

export class MemoryDeliveryAttempts implements DeliveryAttempts {
  readonly #bySubscription = new Map<number, DeliveryAttempt[]>();

  async record(attempt: DeliveryAttempt): Promise<void> {
    const log = this.#bySubscription.get(attempt.subscriptionId) ?? [];
    log.unshift(structuredClone(attempt));
    log.length = Math.min(log.length, KEPT);
    this.#bySubscription.set(attempt.subscriptionId, log);
  }

  async recordAll(attempts: readonly DeliveryAttempt[]): Promise<void> {
    for (const attempt of attempts) await this.record(attempt);
  }

  async recent(subscriptionId: number, limit: number): Promise<DeliveryAttempt[]> {
    return structuredClone((this.#bySubscription.get(subscriptionId) ?? []).slice(0, limit));
  }

  async removeForSubscription(subscriptionId: number): Promise<void> {
    this.#bySubscription.delete(subscriptionId);
  }
}
