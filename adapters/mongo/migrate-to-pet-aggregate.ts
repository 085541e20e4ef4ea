import type { Db } from "mongodb";
import { petNotGone } from "./gone.ts";

interface LegacyOrder {
  _id: number;
  petId: number;
  quantity: number;
  complete: boolean;
}

/**
 * Takes over a database written before stock lived in the pet document: the `inventory` collection's quantities
 * become the pets' `stock`, every open order becomes a hold on its pet, orders get `state`, and every document a
 * `revision`. Each step is conditional on the old shape and idempotent (a hold is set before its order changes shape),
 * so instances starting at once, or a start-up that dies half-way, leave nothing wrong; a migrated database costs
 * a few empty queries. The old `inventory` collection is left as it was.
 */
export const migrateToPetAggregate = async (db: Db, now: Date): Promise<void> => {
  const pets = db.collection<{ _id: number }>("pets");
  const orders = db.collection<LegacyOrder>("orders");
  // A removed pet's `gone` tombstone has neither field, and is no legacy pet.
  const legacyPet = { stock: { $exists: false }, ...petNotGone };
  if ((await pets.countDocuments(legacyPet, { limit: 1 })) > 0) {
    for await (const item of db.collection<{ _id: number; quantity: number }>("inventory").find({})) {
      await pets.updateOne({ _id: item._id, ...legacyPet }, { $set: { stock: item.quantity } });
    }
    await pets.updateMany(legacyPet, { $set: { stock: 0 } });
  }
  await pets.updateMany(
    { revision: { $exists: false }, ...petNotGone },
    { $set: { revision: 1, holds: {}, heldSince: {}, holdCount: 0, outbox: [] } },
  );
  for await (const order of orders.find({ state: { $exists: false }, complete: false })) {
    const key = `o${order._id}`;
    await pets.updateOne(
      { _id: order.petId, [`holds.${key}`]: { $exists: false } },
      { $set: { [`holds.${key}`]: order.quantity }, $inc: { holdCount: 1 } },
    );
    await orders.updateOne(
      { _id: order._id, state: { $exists: false } },
      { $set: { state: "open", revision: 1, createdAt: now, outbox: [] }, $unset: { complete: "" } },
    );
  }
  await orders.updateMany(
    { state: { $exists: false }, complete: true },
    { $set: { state: "complete", revision: 1, createdAt: now, outbox: [] }, $unset: { complete: "" } },
  );
  await db.collection("categories").updateMany({ revision: { $exists: false } }, { $set: { revision: 1 } });
};
