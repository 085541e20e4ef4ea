import { afterAll, beforeAll, expect, it } from "vitest";
import { migrateHoldsToMarks } from "../../adapters/mongo/migrate-holds-to-marks.ts";
import { migrateToPetAggregate } from "../../adapters/mongo/migrate-to-pet-aggregate.ts";
import { mongoStoresFor, prepareMongoDatabase } from "../../adapters/mongo/mongo-stores.ts";
import { RecoverInterruptedWrites } from "../../core/recovery/recover-interrupted-writes.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { describeMongo, freshMongoDatabase, type FreshMongoDatabase } from "../support/mongo.ts";

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
      {
        _id: 2 as never,
        petId: 1,
        quantity: 2,
        complete: true,
        placedBy: 7,
        shipDate: new Date("2026-11-01T00:00:00.000Z"),
      },
    ]);
    await prepareMongoDatabase(db);

    const now = new Date("2026-11-21T12:00:00.000Z");
    await migrateToPetAggregate(db, now);
    await migrateToPetAggregate(db, now);
    await migrateHoldsToMarks(db, now);

    const stores = mongoStoresFor(db, async () => {});
    expect(await stores.pets.ofId(1)).toMatchObject({ stock: 3, holdCount: 0, marks: [], status: "available" });
    expect(await stores.pets.ofId(2)).toMatchObject({
      stock: 0,
      holdCount: 1,
      heldUnits: 1,
      marks: [],
      status: "pending",
      pendingCause: "sold-out",
    });
    expect(await stores.orders.ofId(1)).toMatchObject({ state: "open", revision: 1 });
    expect(await stores.orders.ofId(2)).toMatchObject({
      state: "complete",
      shipDate: new Date("2026-11-01T00:00:00.000Z"),
    });
    expect(await stores.categories.ofId(1)).toMatchObject({ name: "Dogs", revision: 1 });
    // Recovery finds nothing to do: the migrated holds are exactly the open orders.
    const clock = new ManualClock("2026-11-22T12:00:00.000Z");
    const report = await new RecoverInterruptedWrites({ ...stores, clock }, 30_000).execute();
    expect(Object.values(report).every((n) => n === 0)).toBe(true);
    expect((await stores.pets.ofId(2))?.holdCount).toBe(1);
  });
});

describeMongo("a database whose pets hold a hold per open order", () => {
  let mongo: FreshMongoDatabase;
  beforeAll(async () => {
    mongo = await freshMongoDatabase("holds-migration");
  });
  afterAll(() => mongo?.close());

  it("is taken over by instances starting at once: counters, marks for orphans, settling for finished orders; recovery then settles them", async () => {
    const { db } = mongo;
    const since = new Date("2026-11-20T12:00:00.000Z");
    const order = (id: number, petId: number, quantity: number, state: string) => ({
      _id: id as never,
      petId,
      quantity,
      state,
      placedBy: 7,
      revision: 2,
      createdAt: since,
      outbox: [],
    });
    await db.collection("categories").insertOne({ _id: 1 as never, name: "Dogs", nameKey: "dogs", revision: 1 });
    // Pet 1: orders 1 (open), 2 (cancelled, never released), 3 (complete, never consumed), 4 (missing: the placing died).
    // Pet 2: sold out by order 5 (open); pet 3 on a staff hold with stock.
    const pet = (id: number, status: string, stock: number, holds: Record<string, number>) => ({
      _id: id as never,
      name: `Pet ${id}`,
      categoryId: 1,
      status,
      revision: 5,
      stock,
      holds,
      heldSince: Object.fromEntries(Object.keys(holds).map((k) => [k, since])),
      holdCount: Object.keys(holds).length,
      outbox: [],
    });
    await db
      .collection("pets")
      .insertMany([
        pet(1, "available", 10, { o1: 1, o2: 2, o3: 3, o4: 4 }),
        pet(2, "pending", 0, { o5: 1 }),
        pet(3, "pending", 4, {}),
      ]);
    await db
      .collection("orders")
      .insertMany([
        order(1, 1, 1, "open"),
        order(2, 1, 2, "cancelled"),
        order(3, 1, 3, "complete"),
        order(5, 2, 1, "open"),
      ]);
    await prepareMongoDatabase(db);
    const now = new Date("2026-11-21T12:00:00.000Z");

    await Promise.all([migrateHoldsToMarks(db, now), migrateHoldsToMarks(db, now)]);
    await migrateHoldsToMarks(db, now);

    const stores = mongoStoresFor(db, async () => {});
    expect(await stores.pets.ofId(1)).toMatchObject({
      stock: 10,
      holdCount: 4,
      heldUnits: 10,
      marks: [{ orderId: 4, kind: "reserve", units: 4 }],
    });
    expect(await stores.pets.ofId(2)).toMatchObject({ status: "pending", pendingCause: "sold-out", holdCount: 1 });
    expect(await stores.pets.ofId(3)).toMatchObject({ status: "pending", pendingCause: "hold", holdCount: 0 });
    expect((await stores.orders.settlingBefore(now, { limit: 10 })).map((o) => o.id)).toEqual([2, 3]);
    expect(
      await db
        .collection("pets")
        .countDocuments({ $or: [{ holds: { $exists: true } }, { migratingOrders: { $exists: true } }] }),
    ).toBe(0);

    const clock = new ManualClock("2026-11-22T12:00:00.000Z");
    const report = await new RecoverInterruptedWrites({ ...stores, clock }, 30_000).execute();

    expect(report).toMatchObject({ abandonedPlacings: 1, undoneReservations: 1, settledOrders: 2 });
    // Back: order 2's two units and the orphan's four; order 3's three are gone for good; order 1 still holds one.
    expect(await stores.pets.ofId(1)).toMatchObject({ stock: 16, holdCount: 1, heldUnits: 1, marks: [] });
    expect(
      Object.values(await new RecoverInterruptedWrites({ ...stores, clock }, 30_000).execute()).every((n) => n === 0),
    ).toBe(true);
  });
});
