import type { Collection, Db } from "mongodb";
import type { DeliveryAttempt } from "../../core/webhooks/delivery-attempt.ts";
import type { DeliveryAttempts } from "../../core/webhooks/delivery-attempts.port.ts";
import type { WebhookEventType } from "../../core/webhooks/webhook-event.ts";
import { guarded } from "./store-unavailable.ts";

interface DeliveryAttemptDocument {
  subscriptionId: number;
  messageId: string;
  type: WebhookEventType;
  attempt: number;
  at: Date;
  status?: number;
  error?: string;
  responseBody?: string;
  durationMs: number;
  expiresAt: Date;
}

/** How long attempts are kept: the log is bounded by age, and every read by its limit. */
const KEPT_MS = 7 * 24 * 60 * 60 * 1000;

export const createDeliveryAttemptIndexes = async (db: Db): Promise<void> => {
  const attempts = db.collection("webhook_attempts");
  await attempts.createIndex({ subscriptionId: 1, at: -1 });
  // Swept by the adapter (FerretDB 1.x has no TTL indexes).
  await attempts.createIndex({ expiresAt: 1 });
};

export class MongoDeliveryAttempts implements DeliveryAttempts {
  readonly #attempts: Collection<DeliveryAttemptDocument>;
  #lastSweep = 0;
  constructor(db: Db) {
    this.#attempts = db.collection<DeliveryAttemptDocument>("webhook_attempts");
  }

  record(a: DeliveryAttempt): Promise<void> {
    return guarded(async () => {
      this.#sweepOncePerMinute(a.at);
      await this.#attempts.insertOne({
        subscriptionId: a.subscriptionId,
        messageId: a.messageId,
        type: a.type,
        attempt: a.attempt,
        at: a.at,
        ...(a.status !== undefined && { status: a.status }),
        ...(a.error !== undefined && { error: a.error }),
        ...(a.responseBody !== undefined && { responseBody: a.responseBody }),
        durationMs: a.durationMs,
        expiresAt: new Date(a.at.getTime() + KEPT_MS),
      });
    });
  }

  recent(subscriptionId: number, limit: number): Promise<DeliveryAttempt[]> {
    return guarded(async () => {
      const docs = await this.#attempts.find({ subscriptionId }).sort({ at: -1, _id: -1 }).limit(limit).toArray();
      return docs.map((d) => ({
        subscriptionId: d.subscriptionId,
        messageId: d.messageId,
        type: d.type,
        attempt: d.attempt,
        at: d.at,
        status: d.status,
        error: d.error,
        responseBody: d.responseBody,
        durationMs: d.durationMs,
      }));
    });
  }

  removeForSubscription(subscriptionId: number): Promise<void> {
    return guarded(async () => {
      await this.#attempts.deleteMany({ subscriptionId });
    });
  }

  #sweepOncePerMinute(now: Date): void {
    if (now.getTime() - this.#lastSweep < 60_000) return;
    this.#lastSweep = now.getTime();
    this.#attempts.deleteMany({ expiresAt: { $lt: now } }).catch(() => undefined);
  }
}
