import type { Db } from "mongodb";
import * as stockRule from "../../core/pets/stock-rule.ts";

interface LegacyPet {
  _id: number;
  status: string;
  stock: number;
  revision: number;
  holds?: Record<string, number>;
  heldSince?: Record<string, Date>;
  migratingOrders?: number[];
}

interface HeldOrder {
  _id: number;
  state: string;
}

const DONE = { _id: "holds-to-marks" };
const BATCH = 1_000;

/**
 * Takes over a database whose pets kept a hold per open order (docs/consistency.md, "Migration"): each pet gets its
 * hold counters and, for holds no open order explains, what recovery needs to finish them: a reserve mark when the order
 * is missing or abandoned (recovery undoes it), `settling` on a cancelled or completed order (recovery settles it).
 * The pet is converted by one write conditional on its revision; the orders it names are then marked once each
 * (`migratedHold`), and the pet's `migratingOrders` goes. Safe to run on several instances at once and to rerun
 * after a crash at any step; a finished run records itself so later start-ups cost one read.
 */
export const migrateHoldsToMarks = async (db: Db, now: Date): Promise<void> => {
  const migrations = db.collection<{ _id: string }>("migrations");
  if (await migrations.findOne(DONE)) return;
  const pets = db.collection<LegacyPet>("pets");
  const orders = db.collection<HeldOrder & { settling?: Date; migratedHold?: true }>("orders");
  for (;;) {
    const page = await pets
      .find(
        { $or: [{ holds: { $exists: true } }, { migratingOrders: { $exists: true } }] },
        { projection: { outbox: 0 } },
      )
      .limit(100)
      .toArray();
    if (page.length === 0) break;
    for (const legacy of page) {
      const pet = legacy.holds ? await convert(db, legacy, now) : legacy;
      if (!pet?.migratingOrders) continue;
      for (const id of pet.migratingOrders) {
        await orders.updateOne(
          { _id: id, state: { $in: ["cancelled", "complete"] }, migratedHold: { $exists: false } },
          { $set: { settling: now, migratedHold: true } },
        );
      }
      await pets.updateOne({ _id: pet._id }, { $unset: { migratingOrders: "" } });
    }
  }
  await migrations.updateOne(DONE, { $set: { at: now } }, { upsert: true });
};

/** One conditional write; the pet as it is afterwards (converted by this call or another), undefined when gone. */
const convert = async (db: Db, pet: LegacyPet, now: Date): Promise<LegacyPet | undefined> => {
  const pets = db.collection<LegacyPet>("pets");
  const holds = Object.entries(pet.holds ?? {}).map(([key, units]) => ({
    orderId: Number(key.slice(1)),
    units,
    since: pet.heldSince?.[key] ?? now,
  }));
  const states = new Map<number, string>();
  for (let i = 0; i < holds.length; i += BATCH) {
    const ids = holds.slice(i, i + BATCH).map((h) => h.orderId);
    for (const order of await db
      .collection<HeldOrder>("orders")
      .find({ _id: { $in: ids } }, { projection: { state: 1 } })
      .toArray()) {
      states.set(order._id, order.state);
    }
  }
  const marks: Record<string, { u: number; s: Date; n: string }> = {};
  const migratingOrders: number[] = [];
  let openOrders = 0;
  for (const hold of holds) {
    const state = states.get(hold.orderId);
    if (state === "open") openOrders += 1;
    else if (state === "cancelled" || state === "complete") migratingOrders.push(hold.orderId);
    else marks[`r${hold.orderId}`] = { u: hold.units, s: hold.since, n: "migrated" };
  }
  const soldOut = stockRule.holds(stockRule.soldOutStock, { stock: pet.stock, holdCount: openOrders });
  const pending = pet.status === "pending" ? { pendingCause: soldOut ? "sold-out" : "hold" } : {};
  await pets.updateOne({ _id: pet._id, revision: pet.revision, holds: { $exists: true } }, {
    $set: {
      holdCount: holds.length,
      heldUnits: holds.reduce((sum, h) => sum + h.units, 0),
      marks,
      markCount: Object.keys(marks).length,
      fences: {},
      ...pending,
      ...(migratingOrders.length > 0 && { migratingOrders }),
    },
    $unset: { holds: "", heldSince: "" },
    $inc: { revision: 1 },
  } as never);
  return (
    (await pets.findOne({ _id: pet._id, holds: { $exists: false } }, { projection: { migratingOrders: 1 } })) ??
    undefined
  );
};
