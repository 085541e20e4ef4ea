import type { Collection, Document } from "mongodb";
import { holdsEventsInStore, oldestKeyInStore } from "./outbox-key.ts";
import type { OutboxDocument } from "./outbox-documents.ts";

/**
 * The state of what a deleted order leaves under its id (and the lifecycle of what a removed pet leaves): the id and
 * this value, for good. A late copy of the insert is then refused as a duplicate instead of bringing the document
 * back (docs/consistency.md#late-copies). While events of the document are still pending it keeps them too
 * (`outbox`, `hasEvents`, `eventsSince`: the relay drains it as any document, through its `pending_events` and
 * `pending_event_ids` indexes); drained, it is the id and this value alone, in no index but `_id`'s (and a pet's in
 * `provisional`, which recovery reads by its two values), so no query walks it.
 */
export const GONE = "gone";

type Marker = "state" | "lifecycle";

/**
 * The update pipeline that turns a pet or an order into its `gone` tombstone in one write: every other field goes,
 * whatever the document's version wrote, but pending events stay with their fields (their key recomputed exactly).
 */
const tombstoneOf = (marker: Marker): Document[] => [
  {
    $replaceWith: {
      $cond: [
        holdsEventsInStore,
        { _id: "$_id", [marker]: GONE, outbox: "$outbox", hasEvents: true, eventsSince: oldestKeyInStore },
        { _id: "$_id", [marker]: GONE },
      ],
    },
  },
];

/** The update that turns an order into its `gone` tombstone, keeping its pending events. */
export const goneOrder: Document[] = tombstoneOf("state");

/** The update that turns a pet into its `gone` tombstone, keeping its pending events. */
export const gonePet: Document[] = tombstoneOf("lifecycle");

/** Reads of pets, and the start-up migrations' queries for a missing field, see no `gone` tombstone. */
export const petNotGone: Document = { lifecycle: { $ne: GONE } };

/** Reads of orders see no `gone` tombstone: for them the order does not exist. */
export const notGone: Document = { state: { $ne: GONE } };

/** A last pipeline stage: a `gone` tombstone (or a document `also` matches) left without events is the bare tombstone. */
const bareOnceDrained = (marker: Marker, also?: Document): Document => ({
  $replaceWith: {
    $cond: [
      {
        $and: [{ $not: [holdsEventsInStore] }, { $or: [{ $eq: [`$${marker}`, GONE] }, ...(also ? [also] : [])] }],
      },
      { _id: "$_id", [marker]: GONE },
      "$$ROOT",
    ],
  },
});

/**
 * The last stage of an acknowledgement's pipeline update of an order: a `gone` tombstone drained, and a cancelled
 * order settled and left without events, become the bare `gone` tombstone in the same write (a drained document is
 * never left for no one to reduce: no poll finds it again).
 */
export const goneOnceDrained: Document = bareOnceDrained("state", {
  $and: [{ $eq: ["$state", "cancelled"] }, { $eq: [{ $type: "$settling" }, "missing"] }],
});

/** The same stage for a pet: a `gone` tombstone drained becomes the bare one. */
export const petGoneOnceDrained: Document = bareOnceDrained("lifecycle");

/** Removes a document kept only for its events: an order leaves its `gone` tombstone, an orphan is deleted. */
export const remove = async (
  source: Collection<OutboxDocument>,
  _id: number | string,
  filter: Document,
): Promise<boolean> =>
  typeof _id === "number"
    ? (await source.updateOne({ ...filter, _id }, goneOrder)).matchedCount === 1
    : (await source.deleteOne({ ...filter, _id })).deletedCount === 1;
