import type { Db, Document, Filter, UpdateFilter } from "mongodb";
import { oldestKey } from "./outbox-key.ts";
import { outboxProjection, unchangedSince, type OutboxDocument } from "./outbox-documents.ts";

/** The state of a document that only keeps the pending events of a deleted pet or order. */
export const ORPHANED = "orphaned";

/** How many documents with pending events one pass of a deletion moves. */
const PAGE = 100;

/**
 * Deletes the documents of `source` that `filter` matches, without losing an event: a document with events still
 * pending first hands them to an `orphaned` document (`_id` "<collection>/<id>", in the `orders` collection, where
 * the relay already looks), and is deleted only while its outbox is exactly as moved, so an event pushed meanwhile
 * is moved too. A crash between the two writes leaves the events in both places: the relay keeps each once (the
 * event log and the webhook messages are keyed by event id). Documents without events go with one `deleteMany`.
 * With `leaving`, each document is not deleted but turned into its tombstone by that update, which must make it
 * match `filter` no more. `one`: at most one document matches. Answers how many this call removed
 * (docs/consistency.md#no-event-lost-with-its-document).
 */
export const deleteKeepingEvents = async (
  db: Db,
  name: "pets" | "orders",
  filter: Document,
  { one = false, leaving }: { one?: boolean; leaving?: UpdateFilter<OutboxDocument> } = {},
): Promise<number> => {
  const source = db.collection<OutboxDocument>(name);
  const orphans = db.collection<OutboxDocument>("orders");
  const removeOne = async (which: Filter<OutboxDocument>) =>
    leaving ? (await source.updateOne(which, leaving)).modifiedCount : (await source.deleteOne(which)).deletedCount;
  const quiet = { ...filter, hasEvents: { $exists: false } } as Filter<OutboxDocument>;
  let deleted = one
    ? await removeOne(quiet)
    : leaving
      ? (await source.updateMany(quiet, leaving)).modifiedCount
      : (await source.deleteMany(quiet)).deletedCount;
  if (one && deleted === 1) return deleted;
  for (;;) {
    const left = await source.find(filter, { ...outboxProjection, limit: PAGE }).toArray();
    if (left.length === 0) return deleted;
    let moved = 0;
    for (const doc of left) {
      if (doc.outbox.length > 0) {
        await orphans.updateOne(
          { _id: `${name}/${doc._id}` },
          {
            $addToSet: { outbox: { $each: doc.outbox } },
            $set: { hasEvents: true, state: ORPHANED },
            $min: { eventsSince: oldestKey(doc.outbox) },
          },
          { upsert: true },
        );
      }
      moved += await removeOne({ ...filter, ...unchangedSince(doc) } as Filter<OutboxDocument>);
    }
    deleted += moved;
    // A short page wholly removed was all there was; a document whose outbox changed meanwhile is read again.
    if (left.length < PAGE && moved === left.length) return deleted;
  }
};
