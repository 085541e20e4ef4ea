import type { Collection, Filter, UpdateFilter } from "mongodb";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import { remove } from "./gone.ts";
import { oldestKey } from "./outbox-key.ts";

/**
 * A pet or order document as the outbox sees it. Invariant: while `outbox` holds events, `hasEvents` is set and
 * `eventsSince` is missing or at most the key of each of them (every push lowers it with `$min` in the same update);
 * it is only ever raised by `settle`, conditionally on the outbox being exactly what it was computed from.
 */
export interface OutboxDocument {
  /** A number; "<collection>/<id>" for an orphan (ORPHANED). */
  _id: number | string;
  outbox: DomainEvent[];
  hasEvents?: true;
  eventsSince?: string | null;
  /** Orders only (ORPHANED for an orphan). */
  state?: string;
  /** Orders only: a cancelled order is kept while its pet side is unsettled, whatever its events. */
  settling?: Date;
}

/**
 * The state of an orphan, in the `orders` collection under `_id` "pets/<id>" or "orders/<id>": the pending events of
 * a deleted document, as an earlier version kept them apart. Nothing writes one now (a `gone` tombstone keeps its own
 * events, gone.ts); the relay still drains and deletes those a database holds, by deletes only.
 */
export const ORPHANED = "orphaned";

export const outboxProjection = { projection: { outbox: 1, eventsSince: 1, state: 1, settling: 1 } } as const;

/**
 * A document kept only for its events: a cancelled order once settled, or an orphan. It goes with its last event (an
 * order leaving its `gone` tombstone: gone.ts).
 */
export const isTombstone = (doc: Pick<OutboxDocument, "state" | "settling">): boolean =>
  (doc.state === "cancelled" && doc.settling === undefined) || doc.state === ORPHANED;

/** The filter of tombstones among documents (isTombstone). */
export const tombstones = { state: { $in: ["cancelled", ORPHANED] }, settling: { $exists: false } } as const;

/** Pending events, and `eventsSince` is exactly the oldest one's key: nothing for `settle` to do. */
export const isSettled = (doc: OutboxDocument): boolean =>
  doc.outbox.length > 0 && doc.eventsSince === oldestKey(doc.outbox);

/**
 * Matches the document only while its outbox holds exactly the events read: as many, all of them (an event's id is
 * unique and an event never changes once pushed). A push or another acknowledgement since the read makes it miss.
 */
export const unchangedSince = (doc: OutboxDocument): Filter<OutboxDocument> => ({
  _id: doc._id,
  outbox: { $size: doc.outbox.length },
  ...(doc.outbox.length > 0 && { "outbox.id": { $all: doc.outbox.map((e) => e.id) } }),
});

/**
 * One conditional write on the document as read: takes the `acknowledged` events out and sets `eventsSince` to the
 * oldest event left, or, when none is left, unsets it with `hasEvents` (a tombstone, kept only for its events, is
 * removed instead: gone.ts). False when the outbox changed since the read (nothing written then).
 * The `$pullAll` names the very elements read: right on every engine (the first test engine, FerretDB 1.24,
 * matched `$pull` conditions only by whole elements).
 */
export const settle = async (
  source: Collection<OutboxDocument>,
  doc: OutboxDocument,
  acknowledged: ReadonlySet<string>,
): Promise<boolean> => {
  const gone = doc.outbox.filter((e) => acknowledged.has(e.id));
  const kept = doc.outbox.filter((e) => !acknowledged.has(e.id));
  // A tombstone's settling as read is part of the condition: whichever of relay and settler goes last removes it.
  const filter = {
    ...unchangedSince(doc),
    ...(doc.state === "cancelled" && { settling: { $exists: doc.settling !== undefined } }),
  };
  if (kept.length === 0 && isTombstone(doc)) {
    return remove(source, doc._id, { ...filter, ...tombstones });
  }
  const update = {
    ...(gone.length > 0 && { $pullAll: { outbox: gone } }),
    ...(kept.length === 0
      ? { $unset: { hasEvents: "", eventsSince: "" } }
      : { $set: { hasEvents: true, eventsSince: oldestKey(kept) } }),
  } as UpdateFilter<OutboxDocument>;
  return (await source.updateOne(filter, update)).matchedCount === 1;
};
