import type { Collection, Db, Filter, UpdateFilter } from "mongodb";
import type { Order } from "../../core/orders/order.ts";
import type { OrderQuery, Orders } from "../../core/orders/orders.port.ts";
import { findPage } from "./mongo-paging.ts";
import { guarded } from "./store-unavailable.ts";

interface OrderDocument {
  _id: number;
  petId: number;
  quantity: number;
  shipDate?: Date;
  complete: boolean;
  placedBy: number;
}

const toDocument = (order: Order): OrderDocument => ({
  _id: order.id,
  petId: order.petId,
  quantity: order.quantity,
  ...(order.shipDate !== undefined && { shipDate: order.shipDate }),
  complete: order.complete,
  placedBy: order.placedBy,
});

const toOrder = (doc: OrderDocument): Order => ({
  id: doc._id,
  petId: doc.petId,
  quantity: doc.quantity,
  shipDate: doc.shipDate,
  complete: doc.complete,
  placedBy: doc.placedBy,
});

/** `hasOpenForPet` and listings by pet use the first; a customer's own listing uses the second. */
export const createOrderIndexes = async (db: Db): Promise<void> => {
  // One index per command: FerretDB 1.24 drops the connection when one createIndexes names several existing ones.
  await db.collection("orders").createIndex({ petId: 1, complete: 1 });
  await db.collection("orders").createIndex({ placedBy: 1, _id: 1 });
};

/** "Only while open" is `complete: false` in the filter of the one write that changes or deletes the order. */
export class MongoOrders implements Orders {
  readonly #orders: Collection<OrderDocument>;
  constructor(db: Db) {
    this.#orders = db.collection<OrderDocument>("orders");
  }

  ofId(id: number): Promise<Order | undefined> {
    return guarded(async () => {
      const doc = await this.#orders.findOne({ _id: id });
      return doc ? toOrder(doc) : undefined;
    });
  }

  list(query: OrderQuery): Promise<Order[]> {
    return guarded(async () => {
      const filter: Filter<OrderDocument> = {
        ...(query.complete !== undefined && { complete: query.complete }),
        ...(query.petId !== undefined && { petId: query.petId }),
        ...(query.placedBy !== undefined && { placedBy: query.placedBy }),
      };
      return (await findPage(this.#orders, filter, query)).map(toOrder);
    });
  }

  add(order: Order): Promise<void> {
    return guarded(async () => {
      await this.#orders.insertOne(toDocument(order));
    });
  }

  updateOpen(id: number, changes: { complete: boolean; shipDate: Date | undefined }): Promise<Order | undefined> {
    return guarded(async () => {
      const update: UpdateFilter<OrderDocument> =
        changes.shipDate === undefined
          ? { $set: { complete: changes.complete }, $unset: { shipDate: "" } }
          : { $set: { complete: changes.complete, shipDate: changes.shipDate } };
      const doc = await this.#orders.findOneAndUpdate({ _id: id, complete: false }, update, { returnDocument: "after" });
      return doc ? toOrder(doc) : undefined;
    });
  }

  removeOpen(id: number): Promise<Order | undefined> {
    return guarded(async () => {
      const doc = await this.#orders.findOneAndDelete({ _id: id, complete: false });
      return doc ? toOrder(doc) : undefined;
    });
  }

  hasOpenForPet(petId: number): Promise<boolean> {
    return guarded(async () => (await this.#orders.findOne({ petId, complete: false }, { projection: { _id: 1 } })) !== null);
  }
}
