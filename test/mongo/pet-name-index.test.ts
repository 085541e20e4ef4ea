import type { Document, MongoClient } from "mongodb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { mongoStoresFor, prepareMongoDatabase } from "../../adapters/mongo/mongo-stores.ts";
import { describeMongo, freshMongoDatabase, clientWatchingFinds, type FreshMongoDatabase } from "../support/mongo.ts";

describeMongo("pet name search on MongoDB", () => {
  let mongo: FreshMongoDatabase;
  let watched: MongoClient;
  const finds: Document[] = [];
  beforeAll(async () => {
    mongo = await freshMongoDatabase("name_index");
    await prepareMongoDatabase(mongo.db);
    const pet = { categoryId: 1, status: "available", revision: 1, stock: 0, holds: {}, holdCount: 0, outbox: [] };
    await mongo.db.collection("pets").insertMany(
      Array.from({ length: 2000 }, (_, i) => ({
        _id: i + 1,
        name: `Pet ${i}`,
        nameKey: `pet ${i}`,
        ...pet,
      })) as never,
    );
    watched = await clientWatchingFinds(finds, "pets");
  });
  afterAll(async () => {
    await watched?.close();
    await mongo?.close();
  });

  it("walks the {nameKey, _id} index for a prefix, not the whole collection", async () => {
    const stores = mongoStoresFor(watched.db(mongo.db.databaseName), async () => {});
    const found = await stores.pets.list({ limit: 21, namePrefix: "pet 12" });
    expect(found.map((p) => p.id).slice(0, 3)).toEqual([13, 121, 122]);

    const [command] = finds;
    const explained = await mongo.db
      .collection("pets")
      .find(command!.filter)
      .sort(command!.sort)
      .limit(command!.limit)
      .explain();
    expect(JSON.stringify(explained)).toContain('"indexName":"nameKey_1__id_1"');
  });
});
