import type { Collection, Db } from "mongodb";
import type { Inventory } from "../../core/inventory/inventory.port.ts";
import { guarded } from "./store-unavailable.ts";

interface InventoryDocument {
  /** The pet's id: one item per pet. */
  _id: number;
  quantity: number;
}

/** Every change is one single-document update: the server applies check and write atomically. */
export class MongoInventory implements Inventory {
  readonly #items: Collection<InventoryDocument>;
  constructor(db: Db) {
    this.#items = db.collection<InventoryDocument>("inventory");
  }

  /** Idempotent: an item that exists already keeps its quantity. */
  create(petId: number): Promise<void> {
    return guarded(async () => {
      await this.#items.updateOne({ _id: petId }, { $setOnInsert: { quantity: 0 } }, { upsert: true });
    });
  }

  quantityOf(petId: number): Promise<number | undefined> {
    return guarded(async () => (await this.#items.findOne({ _id: petId }))?.quantity);
  }

  quantitiesOf(petIds: readonly number[]): Promise<Map<number, number>> {
    return guarded(async () => {
      if (petIds.length === 0) return new Map();
      const docs = await this.#items.find({ _id: { $in: [...petIds] } }).toArray();
      return new Map(docs.map((doc) => [doc._id, doc.quantity]));
    });
  }

  set(petId: number, quantity: number): Promise<boolean> {
    return guarded(async () => (await this.#items.updateOne({ _id: petId }, { $set: { quantity } })).matchedCount === 1);
  }

  /** The stock check is in the filter: two reservations of the last unit never both match. */
  reserve(petId: number, units: number): Promise<number | undefined> {
    return guarded(async () => {
      const doc = await this.#items.findOneAndUpdate(
        { _id: petId, quantity: { $gte: units } },
        { $inc: { quantity: -units } },
        { returnDocument: "after" },
      );
      return doc?.quantity;
    });
  }

  release(petId: number, units: number): Promise<number | undefined> {
    return guarded(async () => {
      const doc = await this.#items.findOneAndUpdate({ _id: petId }, { $inc: { quantity: units } }, { returnDocument: "after" });
      return doc?.quantity;
    });
  }

  remove(petId: number): Promise<void> {
    return guarded(async () => {
      await this.#items.deleteOne({ _id: petId });
    });
  }
}
