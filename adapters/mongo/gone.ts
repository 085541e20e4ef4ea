import type { Collection, Document } from "mongodb";
import type { OrderDocument } from "./mongo-orders.repository.ts";
import type { PetDocument } from "./mongo-pets.repository.ts";
import type { OutboxDocument } from "./outbox-documents.ts";

/**
 * The state of what a deleted order leaves under its id (and the lifecycle of what a removed pet leaves): the id and
 * this value, nothing else, for good. A late copy of the insert is then refused as a duplicate instead of bringing
 * the document back (docs/consistency.md#late-copies); without its other fields it is in no index but `_id`'s (and a
 * pet's in `lifecycle_1`, which recovery reads by its two values), so no query walks it.
 */
export const GONE = "gone";

/** Every field of an order but `_id` and `state`: a compile error here until a new one is listed. */
const orderFields: Record<Exclude<keyof OrderDocument, "_id" | "state">, ""> = {
  petId: "",
  quantity: "",
  shipDate: "",
  placedBy: "",
  revision: "",
  createdAt: "",
  reservation: "",
  settling: "",
  closedBy: "",
  outbox: "",
  hasEvents: "",
  eventsSince: "",
};

/** The update that turns an order into its `gone` tombstone (and a migrated one's leftover field goes too). */
export const goneOrder: Document = { $set: { state: GONE }, $unset: { ...orderFields, migratedHold: "" } };

/** Every field of a pet but `_id` and `lifecycle`: a compile error here until a new one is listed. */
const petFields: Record<Exclude<keyof PetDocument, "_id" | "lifecycle">, ""> = {
  name: "",
  nameKey: "",
  nameOrder: "",
  categoryId: "",
  status: "",
  pendingCause: "",
  revision: "",
  stock: "",
  holdCount: "",
  heldUnits: "",
  marks: "",
  markCount: "",
  fences: "",
  movingTo: "",
  provisionalSince: "",
  outbox: "",
  hasEvents: "",
  eventsSince: "",
};

/** The update that turns a pet into its `gone` tombstone (an earlier version's leftover fields go too). */
export const gonePet: Document = {
  $set: { lifecycle: GONE },
  $unset: { ...petFields, holds: "", heldSince: "", migratingOrders: "" },
};

/** Reads of pets, and the start-up migrations' queries for a missing field, see no `gone` tombstone. */
export const petNotGone: Document = { lifecycle: { $ne: GONE } };

/** Reads of orders see no `gone` tombstone: for them the order does not exist. */
export const notGone: Document = { state: { $ne: GONE } };

/**
 * The last stage of an acknowledgement's pipeline update of an order: a cancelled order settled and left without
 * events becomes its `gone` tombstone in the same write (a tombstone is never left drained for no one to remove).
 */
export const goneOnceDrained: Document = {
  $replaceWith: {
    $cond: [
      {
        $and: [
          { $eq: ["$state", "cancelled"] },
          { $eq: [{ $type: "$settling" }, "missing"] },
          { $eq: [{ $size: { $ifNull: ["$outbox", []] } }, 0] },
        ],
      },
      { _id: "$_id", state: GONE },
      "$$ROOT",
    ],
  },
};

/** Removes a document kept only for its events: an order leaves its `gone` tombstone, an orphan is deleted. */
export const remove = async (
  source: Collection<OutboxDocument>,
  _id: number | string,
  filter: Document,
): Promise<boolean> =>
  typeof _id === "number"
    ? (await source.updateOne({ ...filter, _id }, goneOrder)).matchedCount === 1
    : (await source.deleteOne({ ...filter, _id })).deletedCount === 1;
