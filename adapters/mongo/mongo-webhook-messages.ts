import type { Collection, Db } from "mongodb";
import type { WebhookEventType } from "../../core/webhooks/webhook-event.ts";
import type { Lease, MessageState, Settlement, WebhookMessage } from "../../core/webhooks/webhook-message.ts";
import type { WebhookMessages } from "../../core/webhooks/webhook-messages.port.ts";
import { duplicatesOnly } from "./duplicate-key.ts";
import { guarded } from "./store-unavailable.ts";
import { deleteAtAfter } from "./ttl-index.ts";

interface WebhookMessageDocument {
  _id: string;
  subscriptionId: number;
  eventId: string;
  type: WebhookEventType;
  payload: string;
  state: MessageState;
  attempts: number;
  nextAttemptAt: Date;
  createdAt: Date;
  /** Who holds the claim, until when; the epoch when nobody does (one range condition claims). */
  leaseOwner: string;
  leaseUntil: Date;
  /** Delivered and failed messages are deleted by the server's TTL monitor after this (wall clock): until then a
   * relay repeated after a crash finds them and stores nothing twice. */
  deleteAt?: Date;
}

const NO_LEASE = new Date(0);
/** How long settled messages are remembered. */
const KEPT_MS = 7 * 24 * 60 * 60 * 1000;

const toMessage = (doc: WebhookMessageDocument): WebhookMessage => ({
  id: doc._id,
  subscriptionId: doc.subscriptionId,
  eventId: doc.eventId,
  type: doc.type,
  payload: doc.payload,
  state: doc.state,
  attempts: doc.attempts,
  nextAttemptAt: doc.nextAttemptAt,
  createdAt: doc.createdAt,
});

/** A settlement as an update: the outcome, and the lease dropped; settled messages get their deletion date. */
const settled = (settlement: Settlement) => {
  const set =
    settlement.state === "pending"
      ? { attempts: settlement.attempts, nextAttemptAt: settlement.nextAttemptAt }
      : { state: settlement.state, attempts: settlement.attempts, deleteAt: deleteAtAfter(KEPT_MS) };
  return { $set: { ...set, leaseOwner: "", leaseUntil: NO_LEASE } };
};

export const createWebhookMessageIndexes = async (db: Db): Promise<void> => {
  const messages = db.collection("webhook_messages");
  await messages.createIndex({ state: 1, nextAttemptAt: 1 });
  await messages.createIndex({ subscriptionId: 1 });
  // The backlog's oldest message (metrics).
  await messages.createIndex({ state: 1, createdAt: 1 });
  await messages.createIndex({ deleteAt: 1 }, { expireAfterSeconds: 0 });
};

/**
 * One document per message. A claim is three round trips whatever its size: the due candidates, one `updateMany`
 * whose filter holds per document only while it is due and unleased (so two instances never both get one), and a
 * read of what this claim got; settling is conditional on still holding the lease.
 */
export class MongoWebhookMessages implements WebhookMessages {
  readonly #messages: Collection<WebhookMessageDocument>;
  constructor(db: Db) {
    this.#messages = db.collection<WebhookMessageDocument>("webhook_messages");
  }

  enqueue(messages: readonly WebhookMessage[]): Promise<void> {
    return guarded(async () => {
      const docs = messages.map((m): WebhookMessageDocument => ({
        _id: m.id,
        subscriptionId: m.subscriptionId,
        eventId: m.eventId,
        type: m.type,
        payload: m.payload,
        state: m.state,
        attempts: m.attempts,
        nextAttemptAt: m.nextAttemptAt,
        createdAt: m.createdAt,
        leaseOwner: "",
        leaseUntil: NO_LEASE,
      }));
      try {
        await this.#messages.insertMany(docs, { ordered: false });
      } catch (error) {
        // Messages already stored (a relay repeated after a crash, or run by two instances at once) stay as they are.
        // A command that failed as a whole (a network error) may have stored none: the relay must not go on.
        if (!duplicatesOnly(error, docs.length)) throw error;
      }
    });
  }

  claimDue(now: Date, lease: Lease, limit: number): Promise<WebhookMessage[]> {
    return guarded(async () => {
      const due = { state: "pending" as const, nextAttemptAt: { $lte: now }, leaseUntil: { $lte: now } };
      const candidates = await this.#messages
        .find(due, { sort: { nextAttemptAt: 1 }, limit, projection: { _id: 1 } })
        .toArray();
      if (candidates.length === 0) return [];
      const ids = candidates.map((c) => c._id);
      // Each document is claimed atomically, and only while still due and unleased: of several instances claiming
      // the same candidates, each message goes to one. This claim's documents are those with its owner and end.
      await this.#messages.updateMany(
        { _id: { $in: ids }, ...due },
        { $set: { leaseOwner: lease.owner, leaseUntil: lease.until } },
      );
      const claimed = await this.#messages
        .find({ _id: { $in: ids }, leaseOwner: lease.owner, leaseUntil: lease.until })
        .toArray();
      return claimed.sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime()).map(toMessage);
    });
  }

  settle(id: string, owner: string, settlement: Settlement): Promise<boolean> {
    return guarded(async () => {
      const result = await this.#messages.updateOne({ _id: id, leaseOwner: owner }, settled(settlement));
      return result.matchedCount === 1;
    });
  }

  settleAll(owner: string, settlements: readonly { id: string; settlement: Settlement }[]): Promise<number> {
    return guarded(async () => {
      if (settlements.length === 0) return 0;
      const result = await this.#messages.bulkWrite(
        settlements.map(({ id, settlement }) => ({
          updateOne: { filter: { _id: id, leaseOwner: owner }, update: settled(settlement) },
        })),
        { ordered: false },
      );
      return result.matchedCount;
    });
  }

  backlog(limit: number): Promise<{ count: number; oldestCreatedAt: Date | undefined }> {
    return guarded(async () => {
      const pending = { state: "pending" as const };
      // Counting stops at `limit`: a scrape's cost does not grow with a runaway backlog.
      const [count, oldest] = await Promise.all([
        this.#messages.countDocuments(pending, { limit }),
        this.#messages.findOne(pending, { sort: { createdAt: 1 }, projection: { createdAt: 1 } }),
      ]);
      return { count, oldestCreatedAt: oldest?.createdAt };
    });
  }

  ofId(id: string): Promise<WebhookMessage | undefined> {
    return guarded(async () => {
      const doc = await this.#messages.findOne({ _id: id });
      return doc ? toMessage(doc) : undefined;
    });
  }

  removeForSubscription(subscriptionId: number): Promise<void> {
    return guarded(async () => {
      await this.#messages.deleteMany({ subscriptionId });
    });
  }
}
