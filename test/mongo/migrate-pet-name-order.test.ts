import { afterAll, beforeAll, expect, it } from "vitest";
import { migratePetNameKeys } from "../../adapters/mongo/mongo-pets.repository.ts";
import { mongoStoresFor, prepareMongoDatabase } from "../../adapters/mongo/mongo-stores.ts";
import { describeMongo, freshMongoDatabase, type FreshMongoDatabase } from "../support/mongo.ts";

describeMongo("pets written before the natural name order", () => {
  let mongo: FreshMongoDatabase;
  beforeAll(async () => {
    mongo = await freshMongoDatabase("name-order");
  });
  afterAll(() => mongo?.close());

  it("get their name order key at start-up, under an index, and then list naturally; twice changes nothing", async () => {
    const { db } = mongo;
    await prepareMongoDatabase(db);
    const pet = { categoryId: 1, status: "available", revision: 1, stock: 0, holdCount: 0, heldUnits: 0, outbox: [] };
    await db.collection("pets").insertMany([
      { _id: 1 as never, name: "Hamster 10", nameKey: "hamster 10", ...pet },
      { _id: 2 as never, name: "Hamster 2", nameKey: "hamster 2", ...pet },
      { _id: 3 as never, name: "HAMSTER 1", ...pet },
    ]);

    await migratePetNameKeys(db);
    await migratePetNameKeys(db);

    const stores = mongoStoresFor(db, async () => {});
    expect((await stores.pets.list({ limit: 10, sort: "name" })).map((p) => p.id)).toEqual([3, 2, 1]);
    expect(
      await db
        .collection("pets")
        .find({ _id: { $in: [1, 2, 3] as never[] } }, { projection: { nameKey: 1, nameOrder: 1 } })
        .sort({ _id: 1 })
        .toArray(),
    ).toEqual([
      { _id: 1, nameKey: "hamster 10", nameOrder: "hamster 00210" },
      { _id: 2, nameKey: "hamster 2", nameOrder: "hamster 0012" },
      { _id: 3, nameKey: "hamster 1", nameOrder: "hamster 0011" },
    ]);
    const indexes = (await db.collection("pets").indexes()).map((index) => index.key);
    expect(indexes).toContainEqual({ nameOrder: 1, _id: 1 });
  });
});
