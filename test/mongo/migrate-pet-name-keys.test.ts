import { afterAll, beforeAll, expect, it } from "vitest";
import { migratePetNameKeys } from "../../adapters/mongo/mongo-pets.repository.ts";
import { mongoStoresFor, prepareMongoDatabase } from "../../adapters/mongo/mongo-stores.ts";
import { describeMongo, freshMongoDatabase, type FreshMongoDatabase } from "../support/mongo.ts";

describeMongo("pets written before the name key", () => {
  let mongo: FreshMongoDatabase;
  beforeAll(async () => {
    mongo = await freshMongoDatabase("name-keys");
  });
  afterAll(() => mongo?.close());

  it("get their lower-cased name key at start-up, and are then found by name; twice changes nothing", async () => {
    const { db } = mongo;
    await prepareMongoDatabase(db);
    const pet = { categoryId: 1, status: "available", revision: 1, stock: 0, holds: {}, holdCount: 0, outbox: [] };
    await db.collection("pets").insertMany([
      { _id: 1 as never, name: "Rex", ...pet },
      { _id: 2 as never, name: "ÉBÈNE", ...pet },
    ]);
    const stores = mongoStoresFor(db, async () => {});
    expect(await stores.pets.list({ limit: 10, namePrefix: "rex" })).toEqual([]);

    await migratePetNameKeys(db);
    await migratePetNameKeys(db);

    expect((await stores.pets.list({ limit: 10, namePrefix: "rex" })).map((p) => p.id)).toEqual([1]);
    expect((await stores.pets.list({ limit: 10, namePrefix: "éb" })).map((p) => p.id)).toEqual([2]);
    expect(
      await db
        .collection("pets")
        .find({}, { projection: { nameKey: 1 } })
        .sort({ _id: 1 })
        .toArray(),
    ).toEqual([
      { _id: 1, nameKey: "rex" },
      { _id: 2, nameKey: "ébène" },
    ]);
  });
});
