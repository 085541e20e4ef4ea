import type { Collection, Db, Document } from "mongodb";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { Outbox } from "../../core/events/outbox.port.ts";
import {
  isSettled,
  keptForEvents,
  outboxProjection,
  settle,
  tombstones,
  type OutboxDocument,
} from "./outbox-documents.ts";
import { outboxKey } from "./outbox-key.ts";
import { retryingDeadlocks } from "./duplicate-key.ts";
import { guarded } from "./store-unavailable.ts";

const oldestFirst = (a: DomainEvent, b: DomainEvent): number =>
  a.occurredAt.getTime() - b.occurredAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const nothing: ReadonlySet<string> = new Set();

/** Which collection (index in `#sources`) and document holds an event, and whether that is a tombstone (or will be once settled). */
interface Holder {
  source: number;
  doc: number | string;
  tombstone: boolean;
}

/**
 * The update that takes the `gone` events out of a document's outbox and keeps the invariant of OutboxDocument:
 * `eventsSince` becomes exactly the key (outboxKey) of the oldest event left, or goes with `hasEvents` when none is.
 */
const withoutEvents = (gone: readonly string[]): Document[] => {
  const left = { $gt: [{ $size: "$outbox" }, 0] };
  const key = {
    $concat: [
      { $dateToString: { date: "$$e.occurredAt", format: "%Y-%m-%dT%H:%M:%S.%LZ", timezone: "UTC" } },
      " ",
      "$$e.id",
    ],
  };
  return [
    { $set: { outbox: { $filter: { input: "$outbox", as: "e", cond: { $not: [{ $in: ["$$e.id", gone] }] } } } } },
    {
      $set: {
        hasEvents: { $cond: [left, true, "$$REMOVE"] },
        eventsSince: { $cond: [left, { $min: { $map: { input: "$outbox", as: "e", in: key } } }, "$$REMOVE"] },
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
 * Acknowledging is one `updateMany` per collection holding acknowledged events (found through the index on
 * `outbox.id`): a pipeline update that filters the events out and recomputes `eventsSince` (or unsets it with
 * `hasEvents`) from what is left, atomically per document, so writes pushing new events meanwhile cost it no retry.
 * Tombstones whose events are all acknowledged (cancelled orders, events of deleted documents) are deleted first, one
 * `deleteMany` when the batch had any. Which documents hold the ids is known from the last `pending` read; ids it did not hand out are
 * looked up first (one `find` per collection).
 */
export class MongoOutbox implements Outbox {
  readonly #sources: Collection<OutboxDocument>[];
  /** The events the last `pending` read handed out: which collection and document holds each. */
  #handed = new Map<string, Holder>();
  constructor(db: Db) {
    this.#sources = [db.collection<OutboxDocument>("pets"), db.collection<OutboxDocument>("orders")];
  }

  pending(limit: number): Promise<DomainEvent[]> {
    return guarded(async () => {
      if (limit < 1) return [];
      const found = await Promise.all(this.#sources.map((source) => this.#oldest(source, limit)));
      this.#handed = new Map(
        found.flatMap((docs, source) =>
          docs.flatMap((doc) =>
            doc.outbox.map((e) => [e.id, { source, doc: doc._id, tombstone: keptForEvents(doc) }] as const),
          ),
        ),
      );
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
      await Promise.all(
        this.#sources.map(async (source, index) => {
          const gone = ids.filter((id) => holders.get(id)?.source === index);
          if (gone.length === 0) return;
          // Tombstones first: deleted only once all their events are acknowledged, so a crash between the two writes
          // leaves nothing that no later poll would find. One still settling stays (recovery's work list); whichever of
          // this and its settlement comes last removes it, hence the second delete.
          const held = [...new Set(gone.filter((id) => holders.get(id)!.tombstone).map((id) => holders.get(id)!.doc))];
          const settledTombstones = { _id: { $in: held }, ...tombstones };
          if (held.length > 0) {
            await source.deleteMany({ ...settledTombstones, outbox: { $not: { $elemMatch: { id: { $nin: gone } } } } });
          }
          await retryingDeadlocks(() => source.updateMany({ "outbox.id": { $in: gone } }, withoutEvents(gone)));
          if (held.length > 0) await source.deleteMany({ ...settledTombstones, outbox: { $size: 0 } });
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
        const docs = await source.find({ "outbox.id": { $in: unknown } }, outboxProjection).toArray();
        for (const doc of docs)
          for (const e of doc.outbox) holders.set(e.id, { source: index, doc: doc._id, tombstone: keptForEvents(doc) });
      }),
    );
    return holders;
  }

  /** Documents of `source` whose events include its `limit` oldest. */
  async #oldest(source: Collection<OutboxDocument>, limit: number): Promise<OutboxDocument[]> {
    for (let size = limit; ; size *= 2) {
      const docs = await source
        .find({ hasEvents: true }, { ...outboxProjection, sort: { eventsSince: 1, _id: 1 }, limit: size })
        .toArray();
      const events = docs.flatMap((doc) => doc.outbox);
      await Promise.all(docs.filter((doc) => !isSettled(doc)).map((doc) => settle(source, doc, nothing)));
      if (docs.length < size) return docs;
      const last = docs[docs.length - 1]!.eventsSince;
      if (typeof last === "string" && events.filter((e) => outboxKey(e) <= last).length >= limit) return docs;
    }
  }
}
