import type { Collection, Db, Document, Filter, UpdateFilter } from "mongodb";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { OrderRecord, OrderState } from "../../core/orders/order-record.ts";
import type {
  Cancellation,
  Completion,
  OpenOrderWrite,
  OrderQuery,
  Orders,
  OrderWrite,
  ShipDateChange,
} from "../../core/orders/orders.port.ts";
import { isDuplicateKeyError } from "./duplicate-key.ts";
import { goneOnceDrained, goneOrder, notGone } from "./gone.ts";
import { findPage } from "./mongo-paging.ts";
import { oldestKey } from "./outbox-key.ts";
import { allMapped, definedFields, type EveryField } from "./mapping.ts";
import { guarded } from "./store-unavailable.ts";
import { createWorkIndexes, PENDING_EVENT_IDS, PENDING_EVENTS, type WorkIndex } from "./work-indexes.ts";
import type { PageRequest } from "../../core/shared/page.ts";

export interface OrderDocument {
  _id: number;
  petId: number;
  quantity: number;
  shipDate?: Date;
  state: OrderState;
  placedBy: number;
  revision: number;
  createdAt: Date;
  reservation?: string;
  settling?: Date;
  closedBy?: string;
  outbox: DomainEvent[];
  hasEvents?: true;
  /** As on pets: the outbox key of the oldest pending event, or an earlier one (see MongoOutbox). */
  eventsSince?: string;
}

const toDocument = (order: OrderRecord): OrderDocument => {
  const { id, petId, quantity, shipDate, state, placedBy, revision, createdAt, ...closing } = order;
  const { reservation, settling, closedBy, ...unmapped } = closing;
  allMapped(unmapped);
  return definedFields({
    _id: id,
    petId,
    quantity,
    shipDate,
    state,
    placedBy,
    revision,
    createdAt,
    reservation,
    settling,
    closedBy,
    outbox: [],
  });
};

const toOrder = (doc: Omit<OrderDocument, "outbox">): EveryField<OrderRecord> => ({
  id: doc._id,
  petId: doc.petId,
  quantity: doc.quantity,
  shipDate: doc.shipDate,
  state: doc.state,
  placedBy: doc.placedBy,
  revision: doc.revision,
  createdAt: doc.createdAt,
  reservation: doc.reservation,
  settling: doc.settling,
  closedBy: doc.closedBy,
});

/** Only an open order at the expected revision, when given; revision + 1, and the events in the same write. */
const openOrderWrite = (write: OpenOrderWrite, set: Document, unset?: Document) => {
  const { orderId, expectedRevision, events } = write;
  if (events.length > 0) set = { ...set, hasEvents: true };
  const filter: Filter<OrderDocument> = {
    _id: orderId,
    state: "open",
    ...(expectedRevision !== undefined && { revision: expectedRevision }),
  };
  const update = {
    $inc: { revision: 1 },
    ...(Object.keys(set).length > 0 && { $set: set }),
    ...(unset && { $unset: unset }),
    ...(events.length > 0 && { $push: { outbox: { $each: [...events] } }, $min: { eventsSince: oldestKey(events) } }),
  } as UpdateFilter<OrderDocument>;
  return { filter, update };
};

const withoutOutbox = { projection: { outbox: 0 } } as const;

/** Recovery's work list: only orders whose pet side is unsettled have the field. */
const SETTLING: WorkIndex = {
  name: "settling",
  key: { settling: 1 },
  only: { settling: { $exists: true } },
  replaces: "settling_1",
};

/**
 * The listing of one state. Every order is listed along `_id` (BY_ID), stepping over the `gone` tombstones between
 * them, a share of a page's range: the test engine reads a secondary index's ranges whole and sorts them, which cost
 * every open and complete order a page.
 */
const BY_STATE = { name: "state_1__id_1", key: { state: 1, _id: 1 } } as const;
const BY_ID = "_id_";
const LISTED_STATES = ["open", "complete"] as const;

/** Listings by pet and deletion of a pet's orders use the first; a customer's own listing the second; recovery and the relay the work indexes. */
export const createOrderIndexes = async (db: Db): Promise<void> => {
  // One index per command: the first test engine (FerretDB 1.24) dropped the connection when one createIndexes named
  // several existing ones, and one command per index costs nothing that matters at start-up.
  const orders = db.collection("orders");
  await orders.createIndex({ petId: 1, _id: 1 });
  await orders.createIndex({ placedBy: 1, _id: 1 });
  await orders.createIndex(BY_STATE.key, { name: BY_STATE.name });
  await createWorkIndexes(orders, [SETTLING, PENDING_EVENTS, PENDING_EVENT_IDS]);
};

/**
 * Every state change is one `findOneAndUpdate` or `updateOne` with the expected state in its filter. A deleted order
 * leaves its `gone` tombstone (gone.ts), which reads do not see.
 */
export class MongoOrders implements Orders {
  readonly #orders: Collection<OrderDocument>;
  constructor(db: Db) {
    this.#orders = db.collection<OrderDocument>("orders");
  }

  ofId(id: number): Promise<OrderRecord | undefined> {
    return guarded(async () => {
      const doc = await this.#orders.findOne({ _id: id, ...notGone }, withoutOutbox);
      return doc ? toOrder(doc) : undefined;
    });
  }

  settlingBefore(cutoff: Date, page: PageRequest): Promise<OrderRecord[]> {
    return guarded(async () =>
      (
        await findPage(this.#orders, { settling: { $lte: cutoff } }, page, { ...withoutOutbox, hint: SETTLING.name })
      ).map(toOrder),
    );
  }

  settled(id: number): Promise<void> {
    return guarded(async () => {
      // One write: a cancelled order whose events were all relayed keeps nothing but its id (outbox-documents.ts
      // `settle`), and its `gone` tombstone refuses a late copy of its insert. Two writes (settle, then remove) left a
      // drained order for good when the second failed: no `settling` left for recovery to find it by. Finding it
      // settled already (a copy of this command landed first) matches too: conditional, so harmless.
      await this.#orders.updateOne(
        {
          _id: id,
          $or: [{ settling: { $exists: true } }, { state: "cancelled", outbox: { $size: 0 } }],
        } as Filter<OrderDocument>,
        [{ $set: { settling: "$$REMOVE" } }, goneOnceDrained],
      );
    });
  }

  list(query: OrderQuery): Promise<OrderRecord[]> {
    return guarded(async () => {
      const descending = query.sort === "-id";
      const state: OrderState | undefined =
        query.complete === undefined ? undefined : query.complete ? "complete" : "open";
      const states: readonly OrderState[] = state === undefined ? LISTED_STATES : [state];
      const page = (filter: Filter<OrderDocument>, hint?: string) =>
        findPage(this.#orders, filter, query, { ...withoutOutbox, descending, hint });
      if (query.petId !== undefined || query.placedBy !== undefined) {
        const by = {
          ...(query.petId !== undefined && { petId: query.petId }),
          ...(query.placedBy !== undefined && { placedBy: query.placedBy }),
        };
        return (await page({ state: { $in: [...states] }, ...by })).map(toOrder);
      }
      const listed =
        state === undefined ? page({ state: { $in: [...states] } }, BY_ID) : page({ state }, BY_STATE.name);
      return (await listed).map(toOrder);
    });
  }

  insert(order: OrderRecord, events: readonly DomainEvent[] = []): Promise<boolean> {
    return guarded(async () => {
      try {
        await this.#orders.insertOne({
          ...toDocument(order),
          outbox: [...events],
          ...(events.length > 0 && { hasEvents: true as const, eventsSince: oldestKey(events) }),
        });
        return true;
      } catch (error) {
        if (isDuplicateKeyError(error)) return false;
        throw error;
      }
    });
  }

  cancel(cancellation: Cancellation): Promise<OrderWrite> {
    const { at, nonce } = cancellation;
    return this.#writeOpen(cancellation, { state: "cancelled", settling: at, closedBy: nonce });
  }

  complete(completion: Completion): Promise<OrderWrite> {
    const { at, nonce, shipDate } = completion;
    return this.#writeOpen(completion, { state: "complete", shipDate, settling: at, closedBy: nonce });
  }

  changeShipDate(change: ShipDateChange): Promise<OrderWrite> {
    const { shipDate } = change;
    return shipDate ? this.#writeOpen(change, { shipDate }) : this.#writeOpen(change, {}, { shipDate: "" });
  }

  /** Refused: one read more, for the order as it is. */
  #writeOpen(write: OpenOrderWrite, set: Document, unset?: Document): Promise<OrderWrite> {
    return guarded(async () => {
      const { filter, update } = openOrderWrite(write, set, unset);
      const doc = await this.#orders.findOneAndUpdate(filter, update, { returnDocument: "after", ...withoutOutbox });
      if (doc) return { applied: true, order: toOrder(doc) };
      const now = await this.#orders.findOne({ _id: write.orderId, ...notGone }, withoutOutbox);
      return { applied: false, order: now ? toOrder(now) : undefined };
    });
  }

  /** One write: each leaves its `gone` tombstone, which keeps the events still pending on it for the relay (gone.ts). */
  removeAllOfPet(petId: number): Promise<void> {
    return guarded(async () => {
      await this.#orders.updateMany({ petId, state: { $ne: "abandoned" } }, goneOrder);
    });
  }
}
