import type { Collection, Db } from "mongodb";
import type { DeliveryAttempt } from "../../core/webhooks/delivery-attempt.ts";
import type { DeliveryAttempts } from "../../core/webhooks/delivery-attempts.port.ts";
import type { WebhookEventType } from "../../core/webhooks/webhook-event.ts";
import { guarded } from "./store-unavailable.ts";
import { deleteAtAfter } from "./ttl-index.ts";

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
  /** The server's TTL monitor deletes the attempt after this (wall clock). */
  deleteAt: Date;
}

/** How long attempts are kept: the log is bounded by age, and every read by its limit. */
const KEPT_MS = 7 * 24 * 60 * 60 * 1000;

export const createDeliveryAttemptIndexes = async (db: Db): Promise<void> => {
  const attempts = db.collection("webhook_attempts");
  await attempts.createIndex({ subscriptionId: 1, at: -1 });
  await attempts.createIndex({ deleteAt: 1 }, { expireAfterSeconds: 0 });
};

const toDocument = (a: DeliveryAttempt): DeliveryAttemptDocument => ({
  subscriptionId: a.subscriptionId,
  messageId: a.messageId,
  type: a.type,
  attempt: a.attempt,
  at: a.at,
  ...(a.status !== undefined && { status: a.status }),
  ...(a.error !== undefined && { error: a.error }),
  ...(a.responseBody !== undefined && { responseBody: a.responseBody }),
  durationMs: a.durationMs,
  deleteAt: deleteAtAfter(KEPT_MS),
});

export class MongoDeliveryAttempts implements DeliveryAttempts {
  readonly #attempts: Collection<DeliveryAttemptDocument>;
  constructor(db: Db) {
    this.#attempts = db.collection<DeliveryAttemptDocument>("webhook_attempts");
  }

  record(a: DeliveryAttempt): Promise<void> {
    return guarded(async () => {
      await this.#attempts.insertOne(toDocument(a));
    });
  }

  recordAll(attempts: readonly DeliveryAttempt[]): Promise<void> {
    return guarded(async () => {
      if (attempts.length > 0) await this.#attempts.insertMany(attempts.map(toDocument), { ordered: false });
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
}
