import type { Collection, Db, Filter } from "mongodb";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { Outbox } from "../../core/events/outbox.port.ts";
import { isSettled, outboxProjection, settle, type OutboxDocument } from "./outbox-documents.ts";
import { outboxKey } from "./outbox-key.ts";
import { guarded } from "./store-unavailable.ts";

const oldestFirst = (a: DomainEvent, b: DomainEvent): number => a.occurredAt.getTime() - b.occurredAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Conditional writes an acknowledgement tries on a document other writers keep changing before it gives up. */
const SETTLE_ATTEMPTS = 3;

const nothing: ReadonlySet<string> = new Set();

/**
 * The events pending on pet and order documents, found through `eventsSince` (OutboxDocument): each collection's
 * documents are read in its order, `limit` at first, so a backlog costs a poll about `limit` documents, not all.
 *
 * Why the `limit` oldest events of a collection lie in its first `limit` documents by (`eventsSince`, _id), missing
 * first: let K be the last one's `eventsSince`. A document not read sorts after it, so its `eventsSince` is at least
 * K, and each of its events' keys at least that (the invariant). The events read whose key is at most K therefore
 * precede every event not read (keys are unique: no ties); when there are `limit` of them, they include the `limit`
 * oldest. That holds whenever the documents read are settled (`eventsSince` exactly their oldest event's key: each
 * gives one such event). A document whose field is earlier (a crash or a lost race in an acknowledgement, a
 * document written before the field) may leave fewer: then the read is repeated with twice as many documents, after
 * settling the ones read, so the cost is paid once.
 *
 * Acknowledging reads the documents holding the ids (an index on `outbox.id`) and settles each: one conditional
 * write, repeated on a fresh read when another write got in between; after that many misses it only pulls the events
 * (the field stays a lower bound; the next poll settles the document).
 */
export class MongoOutbox implements Outbox {
  readonly #sources: Collection<OutboxDocument>[];
  constructor(db: Db) {
    this.#sources = [db.collection<OutboxDocument>("pets"), db.collection<OutboxDocument>("orders")];
  }

  pending(limit: number): Promise<DomainEvent[]> {
    return guarded(async () => {
      if (limit < 1) return [];
      const found = await Promise.all(this.#sources.map((source) => this.#oldest(source, limit)));
      return found.flat().sort(oldestFirst).slice(0, limit);
    });
  }

  acknowledge(ids: readonly string[]): Promise<void> {
    return guarded(async () => {
      if (ids.length === 0) return;
      const acknowledged = new Set(ids);
      for (const source of this.#sources) {
        const holders = await source.find({ "outbox.id": { $in: [...acknowledged] } } as Filter<OutboxDocument>, outboxProjection).toArray();
        for (const holder of holders) await this.#settleAcknowledged(source, holder, acknowledged);
      }
    });
  }

  /** Events of `source` among which are its `limit` oldest. */
  async #oldest(source: Collection<OutboxDocument>, limit: number): Promise<DomainEvent[]> {
    for (let size = limit; ; size *= 2) {
      const docs = await source.find({ hasEvents: true }, { ...outboxProjection, sort: { eventsSince: 1, _id: 1 }, limit: size }).toArray();
      const events = docs.flatMap((doc) => doc.outbox);
      await Promise.all(docs.filter((doc) => !isSettled(doc)).map((doc) => settle(source, doc, nothing)));
      if (docs.length < size) return events;
      const last = docs[docs.length - 1]!.eventsSince;
      if (typeof last === "string" && events.filter((e) => outboxKey(e) <= last).length >= limit) return events;
    }
  }

  async #settleAcknowledged(source: Collection<OutboxDocument>, holder: OutboxDocument, acknowledged: ReadonlySet<string>): Promise<void> {
    let doc: OutboxDocument | null = holder;
    for (let attempt = 1; ; attempt++) {
      if (await settle(source, doc, acknowledged)) return;
      doc = await source.findOne({ _id: doc._id }, outboxProjection);
      if (!doc || !doc.outbox.some((e) => acknowledged.has(e.id))) return;
      if (attempt === SETTLE_ATTEMPTS) {
        await source.updateOne({ _id: doc._id }, { $pullAll: { outbox: doc.outbox.filter((e) => acknowledged.has(e.id)) } });
        return;
      }
    }
  }
}
