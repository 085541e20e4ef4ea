import { afterAll, beforeAll, expect, it } from "vitest";
import { migrateToPetAggregate } from "../../adapters/mongo/migrate-to-pet-aggregate.ts";
import { mongoStoresFor, prepareMongoDatabase } from "../../adapters/mongo/mongo-stores.ts";
import { RecoverInterruptedWrites } from "../../core/recovery/recover-interrupted-writes.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { describeMongo, freshMongoDatabase, type FreshMongoDatabase } from "../support/mongo.ts";
import { holdsOf, petWithHolds } from "../support/holds.ts";

describeMongo("a database written before the pet aggregate", () => {
  let mongo: FreshMongoDatabase;
  beforeAll(async () => {
    mongo = await freshMongoDatabase("migration");
  });
  afterAll(() => mongo?.close());

  it("is taken over at start-up: stock into pets, open orders into holds, states and revisions; twice changes nothing", async () => {
    const { db } = mongo;
    await db.collection("categories").insertOne({ _id: 1 as never, name: "Dogs", nameKey: "dogs" });
    await db.collection("pets").insertMany([
      { _id: 1 as never, name: "Rex", categoryId: 1, status: "available" },
      { _id: 2 as never, name: "Bella", categoryId: 1, status: "pending" },
    ]);
    await db.collection("inventory").insertMany([
      { _id: 1 as never, quantity: 3 },
      { _id: 2 as never, quantity: 0 },
    ]);
    await db.collection("orders").insertMany([
      { _id: 1 as never, petId: 2, quantity: 1, complete: false, placedBy: 7 },
      { _id: 2 as never, petId: 1, quantity: 2, complete: true, placedBy: 7, shipDate: new Date("2026-11-01T00:00:00.000Z") },
    ]);
    await prepareMongoDatabase(db);

    const now = new Date("2026-11-21T12:00:00.000Z");
    await migrateToPetAggregate(db, now);
    await migrateToPetAggregate(db, now);

    const stores = mongoStoresFor(db, async () => {});
    expect(await petWithHolds(stores.pets, 1)).toMatchObject({ stock: 3, holds: [], revision: 1, status: "available" });
    expect(await petWithHolds(stores.pets, 2)).toMatchObject({ stock: 0, holds: [{ orderId: 1, units: 1 }], revision: 1, status: "pending" });
    expect(await stores.orders.ofId(1)).toMatchObject({ state: "open", revision: 1 });
    expect(await stores.orders.ofId(2)).toMatchObject({ state: "complete", shipDate: new Date("2026-11-01T00:00:00.000Z") });
    expect(await stores.categories.ofId(1)).toMatchObject({ name: "Dogs", revision: 1 });
    // Recovery finds nothing to do: the migrated holds are exactly the open orders.
    const clock = new ManualClock("2026-11-22T12:00:00.000Z");
    const report = await new RecoverInterruptedWrites({ ...stores, clock }, 30_000).execute();
    expect(Object.values(report).every((n) => n === 0)).toBe(true);
    expect(await holdsOf(stores.pets, 2)).toHaveLength(1);
  });
});
