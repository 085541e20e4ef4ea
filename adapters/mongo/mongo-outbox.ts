import { type AnyBulkWriteOperation, type Collection, type Db, type Document } from "mongodb";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { Outbox } from "../../core/events/outbox.port.ts";
import { isSettled, outboxProjection, settle, tombstones, type OutboxDocument } from "./outbox-documents.ts";
import { goneOnceDrained, petGoneOnceDrained } from "./gone.ts";
import { oldestKeyInStore, outboxKey } from "./outbox-key.ts";
import { DEADLOCK_RETRY, isBulkDeadlockVictim, retryingDeadlocks } from "./duplicate-key.ts";
import { guarded } from "./store-unavailable.ts";
import { PENDING_EVENT_IDS, PENDING_EVENTS } from "./work-indexes.ts";

const oldestFirst = (a: DomainEvent, b: DomainEvent): number =>
  a.occurredAt.getTime() - b.occurredAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const nothing: ReadonlySet<string> = new Set();

/** One write of an acknowledgement's bulkWrite, on a pet or order document (or a legacy orphan, keyed by a string). */
export type OutboxWrite = AnyBulkWriteOperation<{ _id: number | string }>;

/** The collections whose documents hold events, in the order of `#sources`. */
const SOURCES = ["pets", "orders"] as const;
const ORDERS = SOURCES.indexOf("orders");
export type OutboxCollection = (typeof SOURCES)[number];

/** A document holding events, as the last read saw it. */
interface Holding {
  source: number;
  doc: number | string;
  /** The ids of the events it held. */
  events: readonly string[];
  /** The document as read (outboxProjection's fields), for riders. */
  read: OutboxDocument;
}

/** Which document holds an event, and the event. */
interface Holder {
  holding: Holding;
  event: DomainEvent;
}

/** An event an acknowledgement takes out, with the document that held it as the relay read it. */
export interface AcknowledgedEvent {
  event: DomainEvent;
  collection: OutboxCollection;
  /** The fields of outboxProjection (add one there for a rider to see it). */
  holder: OutboxDocument;
}

/**
 * Writes that ride on an acknowledgement: given the events one acknowledgement takes out, the operations to send in
 * the same `bulkWrite` of each collection (unordered: each keeps its own condition, and one that misses or fails
 * leaves the others alone). A rider's operations must each be idempotent and conditional, as a copy of the bulkWrite
 * may be applied again later.
 */
export type AcknowledgementRider = (
  acknowledged: readonly AcknowledgedEvent[],
) => Partial<Record<OutboxCollection, OutboxWrite[]>>;

const holdingOf = (source: number, doc: OutboxDocument): Holding => ({
  source,
  doc: doc._id,
  events: doc.outbox.map((e) => e.id),
  read: doc,
});

const holdersIn = (source: number, docs: readonly OutboxDocument[]): [string, Holder][] =>
  docs.flatMap((doc) => {
    const holding = holdingOf(source, doc);
    return doc.outbox.map((event) => [event.id, { holding, event }] as [string, Holder]);
  });

/**
 * The operations that take `gone` out of the documents holding them, per document:
 * - a pet or an order: one pipeline `updateOne` (withoutEvents), conditional on holding one of the events, whose last
 *   stage reduces a `gone` tombstone left without events to the bare tombstone (gone.ts), and on an order also a
 *   cancelled one settled and left without events, whether it was settled when read or since: whichever of this and
 *   its settlement comes last removes it;
 * - an orphan (ORPHANED: a deleted document's events, as an earlier version kept them; none is written now) whose
 *   every event goes: one `deleteOne`, conditional on it still holding no other event (else it stays whole, and its
 *   events are relayed again: a repeat, never a loss);
 * - an orphan losing some events: the pipeline `updateOne`, then a `deleteOne` of it with an empty outbox, sent after
 *   the updates (the driver sends an unordered bulk's updates, then its deletes).
 */
const acknowledgements = (gone: readonly string[], holders: ReadonlyMap<string, Holder>) => {
  const byDoc = new Map<Holding, string[]>();
  for (const id of gone) {
    const holding = holders.get(id)?.holding;
    if (holding) byDoc.set(holding, [...(byDoc.get(holding) ?? []), id]);
  }
  const operations: OutboxWrite[][] = SOURCES.map(() => []);
  for (const [holding, ids] of byDoc) {
    const into = operations[holding.source]!;
    const _id = holding.doc;
    const orphan = typeof _id === "string";
    if (orphan && holding.events.every((id) => ids.includes(id))) {
      into.push({
        deleteOne: { filter: { _id, ...tombstones, outbox: { $not: { $elemMatch: { id: { $nin: ids } } } } } },
      });
      continue;
    }
    const drained = orphan ? [] : [holding.source === ORDERS ? goneOnceDrained : petGoneOnceDrained];
    const update = [...withoutEvents(ids), ...drained];
    into.push({ updateOne: { filter: { _id, "outbox.id": { $in: ids } }, update } });
    if (orphan) into.push({ deleteOne: { filter: { _id, ...tombstones, outbox: { $size: 0 } } } });
  }
  return operations;
};

/**
 * The update that takes the `gone` events out of a document's outbox and keeps the invariant of OutboxDocument:
 * `eventsSince` becomes exactly the key (outboxKey) of the oldest event left, or goes with `hasEvents` when none is.
 */
const withoutEvents = (gone: readonly string[]): Document[] => {
  const left = { $gt: [{ $size: "$outbox" }, 0] };
  return [
    { $set: { outbox: { $filter: { input: "$outbox", as: "e", cond: { $not: [{ $in: ["$$e.id", gone] }] } } } } },
    {
      $set: {
        hasEvents: { $cond: [left, true, "$$REMOVE"] },
        eventsSince: { $cond: [left, oldestKeyInStore, "$$REMOVE"] },
      },
    },
  ];
};

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
 * Acknowledging is one unordered `bulkWrite` per collection holding acknowledged events, with one operation per
 * document (acknowledgements): a pipeline update that filters the events out and recomputes `eventsSince` (or unsets
 * it with `hasEvents`) from what is left, atomically per document, so writes pushing new events meanwhile cost it no
 * retry; a `gone` tombstone drained, or a cancelled order settled and left without events, becomes the bare `gone`
 * tombstone in that same write, and an orphan losing its last events is deleted. Riders (AcknowledgementRider) add
 * their operations to the same bulkWrite. One `update` command per collection, and a `delete` after it when the batch
 * drains an orphan. Which
 * documents hold the ids is known from the last `pending` read; ids it did not hand out are looked up first (one
 * `find` per collection).
 */
export class MongoOutbox implements Outbox {
  readonly #sources: Collection<OutboxDocument>[];
  readonly #riders: readonly AcknowledgementRider[];
  /** The events the last `pending` read handed out: which collection and document holds each. */
  #handed = new Map<string, Holder>();
  constructor(db: Db, options: { riders?: readonly AcknowledgementRider[] } = {}) {
    this.#sources = SOURCES.map((name) => db.collection<OutboxDocument>(name));
    this.#riders = options.riders ?? [];
  }

  pending(limit: number): Promise<DomainEvent[]> {
    return guarded(async () => {
      if (limit < 1) return [];
      const found = await Promise.all(this.#sources.map((source) => this.#oldest(source, limit)));
      this.#handed = new Map(found.flatMap((docs, source) => holdersIn(source, docs)));
      return found
        .flatMap((docs) => docs.flatMap((doc) => doc.outbox))
        .sort(oldestFirst)
        .slice(0, limit);
    });
  }

  acknowledge(ids: readonly string[]): Promise<void> {
    return guarded(async () => {
      if (ids.length === 0) return;
      const holders = await this.#holdersOf(ids);
      const operations = acknowledgements(ids, holders);
      const acknowledged = ids.flatMap((id): AcknowledgedEvent[] => {
        const holder = holders.get(id);
        if (!holder) return [];
        const { event, holding } = holder;
        return [{ event, collection: SOURCES[holding.source]!, holder: holding.read }];
      });
      for (const rider of this.#riders) {
        const extra = rider(acknowledged);
        SOURCES.forEach((name, source) => operations[source]!.push(...(extra[name] ?? [])));
      }
      await Promise.all(
        this.#sources.map(async (source, index) => {
          const writes = operations[index]!;
          if (writes.length === 0) return;
          // Every operation is conditional and idempotent: a bulk whose victims wrote nothing is sent again whole.
          await retryingDeadlocks(
            () => (source as unknown as Collection<{ _id: number | string }>).bulkWrite(writes, { ordered: false }),
            DEADLOCK_RETRY,
            isBulkDeadlockVictim,
          );
        }),
      );
    });
  }

  /** Where each id is held: from the last `pending` read, else looked up (ids that were not handed out). */
  async #holdersOf(ids: readonly string[]): Promise<Map<string, Holder>> {
    const unknown = ids.filter((id) => !this.#handed.has(id));
    if (unknown.length === 0) return this.#handed;
    const holders = new Map(this.#handed);
    await Promise.all(
      this.#sources.map(async (source, index) => {
        const docs = await source
          .find(
            { hasEvents: true, "outbox.id": { $in: unknown } },
            { ...outboxProjection, hint: PENDING_EVENT_IDS.name },
          )
          .toArray();
        for (const [id, holder] of holdersIn(index, docs)) holders.set(id, holder);
      }),
    );
    return holders;
  }

  /** Documents of `source` whose events include its `limit` oldest. */
  async #oldest(source: Collection<OutboxDocument>, limit: number): Promise<OutboxDocument[]> {
    for (let size = limit; ; size *= 2) {
      const docs = await source
        .find(
          { hasEvents: true },
          { ...outboxProjection, sort: { eventsSince: 1, _id: 1 }, limit: size, hint: PENDING_EVENTS.name },
        )
        .toArray();
      const events = docs.flatMap((doc) => doc.outbox);
      await Promise.all(docs.filter((doc) => !isSettled(doc)).map((doc) => settle(source, doc, nothing)));
      if (docs.length < size) return docs;
      const last = docs[docs.length - 1]!.eventsSince;
      if (typeof last === "string" && events.filter((e) => outboxKey(e) <= last).length >= limit) return docs;
    }
  }
}
