import type { Collection, Db } from "mongodb";
import type { PageRequest } from "../../core/shared/page.ts";
import type { WebhookEventType } from "../../core/webhooks/webhook-event.ts";
import type { WebhookSecret, WebhookSubscription } from "../../core/webhooks/webhook-subscription.ts";
import type { WebhookSubscriptions } from "../../core/webhooks/webhook-subscriptions.port.ts";
import { findPage } from "./mongo-paging.ts";
import { guarded } from "./store-unavailable.ts";

interface WebhookSubscriptionDocument {
  _id: number;
  url: string;
  events: WebhookEventType[];
  description?: string;
  secrets: { value: string; expiresAt?: Date }[];
  /** The newest secret again: the compare-and-set of a rotation filters on it. */
  currentSecret: string;
  createdAt: Date;
}

const secretDocuments = (secrets: WebhookSecret[]) =>
  secrets.map((s) => ({ value: s.value, ...(s.expiresAt !== undefined && { expiresAt: s.expiresAt }) }));

const toDocument = (s: WebhookSubscription): WebhookSubscriptionDocument => ({
  _id: s.id,
  url: s.url,
  events: [...s.events],
  ...(s.description !== undefined && { description: s.description }),
  secrets: secretDocuments(s.secrets),
  currentSecret: s.secrets[0]!.value,
  createdAt: s.createdAt,
});

const toSubscription = (doc: WebhookSubscriptionDocument): WebhookSubscription => ({
  id: doc._id,
  url: doc.url,
  events: doc.events,
  description: doc.description,
  secrets: doc.secrets.map((s) => ({ value: s.value, expiresAt: s.expiresAt })),
  createdAt: doc.createdAt,
});

export const createWebhookSubscriptionIndexes = async (db: Db): Promise<void> => {
  await db.collection("webhook_subscriptions").createIndex({ events: 1 });
};

export class MongoWebhookSubscriptions implements WebhookSubscriptions {
  readonly #subscriptions: Collection<WebhookSubscriptionDocument>;
  constructor(db: Db) {
    this.#subscriptions = db.collection<WebhookSubscriptionDocument>("webhook_subscriptions");
  }

  add(subscription: WebhookSubscription): Promise<void> {
    return guarded(async () => {
      await this.#subscriptions.insertOne(toDocument(subscription));
    });
  }

  ofId(id: number): Promise<WebhookSubscription | undefined> {
    return guarded(async () => {
      const doc = await this.#subscriptions.findOne({ _id: id });
      return doc ? toSubscription(doc) : undefined;
    });
  }

  list(page: PageRequest): Promise<WebhookSubscription[]> {
    return guarded(async () => (await findPage(this.#subscriptions, {}, page)).map(toSubscription));
  }

  listeningTo(type: WebhookEventType): Promise<WebhookSubscription[]> {
    return guarded(async () =>
      (await this.#subscriptions.find({ events: type }).sort({ _id: 1 }).toArray()).map(toSubscription),
    );
  }

  replaceSecrets(id: number, expectedCurrent: string, secrets: WebhookSecret[]): Promise<boolean> {
    return guarded(async () => {
      const result = await this.#subscriptions.updateOne(
        { _id: id, currentSecret: expectedCurrent },
        { $set: { secrets: secretDocuments(secrets), currentSecret: secrets[0]!.value } },
      );
      return result.matchedCount === 1;
    });
  }

  remove(id: number): Promise<boolean> {
    return guarded(async () => (await this.#subscriptions.deleteOne({ _id: id })).deletedCount === 1);
  }
}
