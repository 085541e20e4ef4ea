import { afterAll, beforeAll, expect, it } from "vitest";
import { migratePetNameKeys } from "../../adapters/mongo/mongo-pets.repository.ts";
import { nameKeyOf } from "../../core/pets/pet-name-key.ts";
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
        .find({ _id: { $in: [1, 2] as never[] } }, { projection: { nameKey: 1 } })
        .sort({ _id: 1 })
        .toArray(),
    ).toEqual([
      { _id: 1, nameKey: "rex" },
      { _id: 2, nameKey: "ébène" },
    ]);
  });

  it("written with an earlier key get the case-folded one at start-up, once: ΟΔΟΣ finds ΟΔΟΣΑ, STRAẞE Straße", async () => {
    const { db } = mongo;
    await prepareMongoDatabase(db);
    // A database migrated under the previous definition (ẞ not yet folded as ß) has only its marker.
    await db.collection("migrations").deleteMany({});
    await db.collection("migrations").insertOne({ _id: "pet-name-keys-case-folded" as never, at: new Date() });
    const pet = { categoryId: 1, status: "available", revision: 1, stock: 0, holds: {}, holdCount: 0, outbox: [] };
    await db.collection("pets").insertMany([
      { _id: 11 as never, name: "ΟΔΟΣ", nameKey: "οδος", ...pet },
      { _id: 12 as never, name: "ΟΔΟΣΑ", nameKey: "οδοσα", ...pet },
      { _id: 13 as never, name: "Straße", nameKey: "straße", ...pet },
      { _id: 14 as never, name: "STRAẞE 2", nameKey: "straße 2", ...pet },
    ]);
    const stores = mongoStoresFor(db, async () => {});
    const found = async (prefix: string) =>
      (await stores.pets.list({ limit: 10, namePrefix: nameKeyOf(prefix) })).map((p) => p.id);
    expect(await found("ΟΔΟΣ")).toEqual([12]);

    await migratePetNameKeys(db);
    expect(await found("ΟΔΟΣ")).toEqual([11, 12]);
    expect(await found("οδος")).toEqual([11, 12]);
    expect(await found("STRASSE")).toEqual([13, 14]);
    expect(await found("STRAẞE")).toEqual([13, 14]);

    // Done once: a key written afterwards by an old instance is not walked for again.
    await db.collection("pets").updateOne({ _id: 13 as never }, { $set: { nameKey: "straße" } });
    await migratePetNameKeys(db);
    expect((await db.collection("pets").findOne({ _id: 13 as never }))?.nameKey).toBe("straße");
  });
});
