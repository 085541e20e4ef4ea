/**
 * Proves that the MongoDB-compatible server provided by the global setup
 * (our FerretDB v2 image, or mongo:8) behaves as the Mongo adapters rely on.
 */
import { MongoServerError, type ObjectId } from "mongodb";
import { isDuplicateKeyError } from "../../adapters/mongo/duplicate-key.ts";
import { afterEach, beforeEach, expect, it } from "vitest";
import { describeMongo, freshMongoDatabase, type FreshMongoDatabase } from "./mongo.ts";

interface Item {
  _id: string;
  sku: string;
  stock: number;
}

interface Counter {
  _id: string;
  seq: number;
}

describeMongo("MongoDB test server (smoke)", () => {
  let mongo: FreshMongoDatabase;

  beforeEach(async () => {
    mongo = await freshMongoDatabase("smoke");
  });

  afterEach(async () => {
    await mongo.close();
  });

  it("answers ping and reports a version", async () => {
    const ping = await mongo.db.command({ ping: 1 });
    expect(ping.ok).toBe(1);
    const info = await mongo.db.admin().command({ buildInfo: 1 });
    expect(typeof info.version).toBe("string");
  });

  it("inserts and finds documents, with filter, sort and projection", async () => {
    const items = mongo.db.collection<Item>("items");
    const inserted = await items.insertMany([
      { _id: "a", sku: "dog-food", stock: 5 },
      { _id: "b", sku: "cat-food", stock: 0 },
      { _id: "c", sku: "leash", stock: 12 },
    ]);
    expect(inserted.insertedCount).toBe(3);

    expect(await items.findOne({ _id: "a" })).toEqual({ _id: "a", sku: "dog-food", stock: 5 });
    const inStock = await items
      .find({ stock: { $gt: 0 } }, { projection: { _id: 0, sku: 1 } })
      .sort({ stock: -1 })
      .toArray();
    expect(inStock).toEqual([{ sku: "leash" }, { sku: "dog-food" }]);
    expect(await items.countDocuments({})).toBe(3);
    expect(await items.findOne({ _id: "missing" })).toBeNull();
  });

  it("generates ObjectIds for documents inserted without _id", async () => {
    const notes = mongo.db.collection<{ _id?: ObjectId; text: string }>("notes");
    const { insertedId } = await notes.insertOne({ text: "hello" });
    const found = await notes.findOne({ _id: insertedId });
    expect(found?.text).toBe("hello");
    expect(found?._id?.toHexString()).toBe(insertedId.toHexString());
  });

  it("findOneAndUpdate with $inc and upsert returns the updated document (sequence counter)", async () => {
    const counters = mongo.db.collection<Counter>("counters");
    const next = async (): Promise<number> => {
      const doc = await counters.findOneAndUpdate(
        { _id: "pets" },
        { $inc: { seq: 1 } },
        { upsert: true, returnDocument: "after" },
      );
      if (doc === null) throw new Error("findOneAndUpdate returned null with upsert + returnDocument after");
      return doc.seq;
    };
    expect(await next()).toBe(1);
    expect(await next()).toBe(2);
    expect(await next()).toBe(3);
    expect(await counters.findOne({ _id: "pets" })).toEqual({ _id: "pets", seq: 3 });

    // returnDocument 'before' on a missing document with upsert yields null.
    const before = await counters.findOneAndUpdate(
      { _id: "orders" },
      { $inc: { seq: 1 } },
      { upsert: true, returnDocument: "before" },
    );
    expect(before).toBeNull();
    expect(await counters.findOne({ _id: "orders" })).toEqual({ _id: "orders", seq: 1 });
  });

  it("rejects a duplicate key on a unique index: code 11000, or the engine quirk the adapters recognise", async () => {
    const items = mongo.db.collection<Item>("items");
    await items.createIndex({ sku: 1 }, { unique: true, name: "sku_unique" });
    await items.insertOne({ _id: "a", sku: "dog-food", stock: 1 });

    const error: unknown = await items.insertOne({ _id: "b", sku: "dog-food", stock: 2 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MongoServerError);
    expect((error as MongoServerError).code).toBe(11000);

    // A duplicate _id is a duplicate key too.
    const dupId: unknown = await items.insertOne({ _id: "a", sku: "other", stock: 0 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((dupId as MongoServerError).code).toBe(11000);

    // Updates that collide with the unique index are duplicate keys too. findAndModify on FerretDB v2 says
    // InternalError (code 1) with PostgreSQL's text: adapters/mongo/duplicate-key.ts is where that is recognised.
    await items.insertOne({ _id: "c", sku: "leash", stock: 3 });
    const dupUpdate: unknown = await items.updateOne({ _id: "c" }, { $set: { sku: "dog-food" } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((dupUpdate as MongoServerError).code).toBe(11000);
    const dupFindAndModify: unknown = await items
      .findOneAndUpdate({ _id: "c" }, { $set: { sku: "dog-food" } }, { returnDocument: "after" })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(dupFindAndModify).toBeInstanceOf(MongoServerError);
    expect(isDuplicateKeyError(dupFindAndModify)).toBe(true);
    expect((await items.findOne({ _id: "c" }))?.sku).toBe("leash");

    expect(await items.countDocuments({})).toBe(2);
    const indexes = await items.indexes();
    expect(indexes.find((index) => index.name === "sku_unique")?.unique).toBe(true);
  });

  it("applies a conditional updateOne only when the $gte filter matches", async () => {
    const items = mongo.db.collection<Item>("items");
    await items.insertOne({ _id: "a", sku: "dog-food", stock: 5 });

    const ok = await items.updateOne({ _id: "a", stock: { $gte: 3 } }, { $inc: { stock: -3 } });
    expect(ok.matchedCount).toBe(1);
    expect(ok.modifiedCount).toBe(1);

    const refused = await items.updateOne({ _id: "a", stock: { $gte: 3 } }, { $inc: { stock: -3 } });
    expect(refused.matchedCount).toBe(0);
    expect(refused.modifiedCount).toBe(0);

    expect((await items.findOne({ _id: "a" }))?.stock).toBe(2);
  });

  it("never oversells under concurrent conditional decrements", async () => {
    const items = mongo.db.collection<Item>("items");
    await items.insertOne({ _id: "a", sku: "dog-food", stock: 5 });

    const results = await Promise.all(
      Array.from({ length: 12 }, () => items.updateOne({ _id: "a", stock: { $gte: 1 } }, { $inc: { stock: -1 } })),
    );
    expect(results.filter((r) => r.modifiedCount === 1)).toHaveLength(5);
    expect((await items.findOne({ _id: "a" }))?.stock).toBe(0);
  });

  it("gives each freshMongoDatabase call its own database and drops it on close", async () => {
    const other = await freshMongoDatabase("smoke");
    try {
      expect(other.db.databaseName).not.toBe(mongo.db.databaseName);
      expect(other.db.databaseName.startsWith("smoke_")).toBe(true);
      await other.db.collection<{ _id: number }>("x").insertOne({ _id: 1 });
      expect(await mongo.db.collection("x").countDocuments({})).toBe(0);
    } finally {
      await other.close();
    }
    const { databases } = await mongo.client.db("admin").admin().listDatabases({ nameOnly: true });
    expect(databases.map((d) => d.name)).not.toContain(other.db.databaseName);
  });
});
