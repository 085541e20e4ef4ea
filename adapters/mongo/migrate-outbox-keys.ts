import type { Db } from "mongodb";
import { goneOrder } from "./gone.ts";
import { ORPHANED, outboxProjection, settle, tombstones, type OutboxDocument } from "./outbox-documents.ts";

const nothing: ReadonlySet<string> = new Set();

/**
 * Takes over a database written before `eventsSince` (MongoOutbox): every document with events and no field gets
 * it, by the same conditional write as an acknowledgement (a document changed meanwhile is left to the relay, which
 * finds it anyway: a missing field sorts first, and settles it). Tombstones whose events were all taken (an
 * acknowledgement that died before removing them) are removed (a cancelled order leaving its `gone` tombstone, gone.ts);
 * a cancellation still `settling` is no tombstone yet: it is recovery's only record of units its pet has not given
 * back. Idempotent; on a migrated database it costs two empty queries, an update and a delete of nothing.
 */
export const migrateOutboxKeys = async (db: Db): Promise<void> => {
  for (const name of ["pets", "orders"]) {
    const source = db.collection<OutboxDocument>(name);
    for await (const doc of source.find({ hasEvents: true, eventsSince: { $exists: false } }, outboxProjection)) {
      await settle(source, doc, nothing);
    }
  }
  const orders = db.collection<OutboxDocument>("orders");
  await orders.updateMany({ ...tombstones, state: "cancelled", outbox: { $size: 0 } }, goneOrder);
  await orders.deleteMany({ ...tombstones, state: ORPHANED, outbox: { $size: 0 } });
};
