/**
 * Expiry is the server's job: TTL indexes on idempotency records and rate-limit windows, created at start-up, and a
 * proof that the engine the tests run on really deletes expired documents.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../bootstrap/config.ts";
import { createLogger } from "../../bootstrap/logger.ts";
import { composePetstore } from "../../bootstrap/petstore.ts";
import { mongoStoresFor, prepareMongoDatabase } from "../../adapters/mongo/mongo-stores.ts";
import { createTtlIndex } from "../../adapters/mongo/ttl-index.ts";
import { describeMongo, freshMongoDatabase, mongoUrl, type FreshMongoDatabase } from "../support/mongo.ts";
import type { Db } from "mongodb";

/** Every TTL index of the database, as "<collection>.<field> after <seconds>s". */
const ttlIndexesOf = async (db: Db): Promise<string[]> => {
  const found: string[] = [];
  for (const collection of await db.collections()) {
    for (const index of await collection.indexes()) {
      if (typeof index.expireAfterSeconds === "number") {
        found.push(
          `${collection.collectionName}.${Object.keys(index.key).join(",")} after ${index.expireAfterSeconds}s`,
        );
      }
    }
  }
  return found.sort();
};

describeMongo("TTL indexes", () => {
  let mongo: FreshMongoDatabase;
  beforeEach(async () => {
    mongo = await freshMongoDatabase("ttl");
  });
  afterEach(async () => {
    await mongo?.close();
  });

  it("are created when the service starts with PETSTORE_STORE=mongo: idempotency records, rate-limit windows, webhook attempts and settled messages (the event log trims itself)", async () => {
    const config = loadConfig({
      PETSTORE_STORE: "mongo",
      MONGODB_URL: mongoUrl(),
      MONGODB_DB: mongo.db.databaseName,
      PETSTORE_ADMIN_KEY: "ttl-test-admin-key-0123456789abcdef",
      PETSTORE_SEED_DEMO: "false",
    });
    const petstore = await composePetstore(
      config,
      createLogger("error", () => undefined),
    );
    try {
      expect(await ttlIndexesOf(mongo.db)).toEqual([
        "idempotency_records.deleteAt after 0s",
        "rate_windows.deleteAt after 0s",
        "webhook_attempts.deleteAt after 0s",
        "webhook_messages.deleteAt after 0s",
      ]);
    } finally {
      await petstore.close();
    }
  });

  it("take over databases written by earlier versions: their documents get a deletion date, the plain index goes", async () => {
    const dayEnd = new Date("2100-01-02T00:00:00.000Z"); // in the future: the engine deletes past dates within a second
    for (const name of ["idempotency_records", "rate_windows"]) {
      await mongo.db.collection(name).createIndex({ expiresAt: 1 });
      await mongo.db.collection<{ _id: string; expiresAt: Date }>(name).insertOne({ _id: "legacy", expiresAt: dayEnd });
    }

    await Promise.all([prepareMongoDatabase(mongo.db), prepareMongoDatabase(mongo.db)]); // two instances starting

    expect(
      (await ttlIndexesOf(mongo.db)).filter((index) => !index.startsWith("webhook_") && !index.startsWith("event_log")),
    ).toEqual(["idempotency_records.deleteAt after 0s", "rate_windows.deleteAt after 0s"]);
    for (const name of ["idempotency_records", "rate_windows"]) {
      expect((await mongo.db.collection(name).indexes()).map((index) => index.name)).not.toContain("expiresAt_1");
    }
    const deleteAtOf = async (name: string) =>
      (await mongo.db.collection<{ _id: string; deleteAt: Date }>(name).findOne({ _id: "legacy" }))?.deleteAt;
    expect(await deleteAtOf("idempotency_records")).toEqual(dayEnd);
    expect(await deleteAtOf("rate_windows")).toEqual(new Date(dayEnd.getTime() + 10 * 60_000));
  });

  it("schedule deletion on the wall clock: a service clock in the past does not get live records deleted", async () => {
    await prepareMongoDatabase(mongo.db);
    const stores = mongoStoresFor(mongo.db, async () => {});
    const now = new Date("2020-01-01T12:00:00.000Z");
    await stores.idempotency.claim({
      scope: "key:1",
      key: "k",
      fingerprint: "f",
      now,
      leaseUntil: new Date(now.getTime() + 60_000),
      expiresAt: new Date(now.getTime() + 86_400_000),
    });
    const minute = { key: "m0", limit: 10, resetsAt: new Date(now.getTime() + 60_000) };
    await stores.limiter.consume("key:1", {
      minute: minute,
      day: { key: "d0", limit: 100, resetsAt: new Date(now.getTime() + 12 * 3_600_000) },
    });

    const record = await mongo.db.collection<{ _id: string; deleteAt: Date }>("idempotency_records").findOne({});
    const window = await mongo.db.collection<{ _id: string; deleteAt: Date }>("rate_windows").findOne({});
    const hours = (date: Date | undefined) => ((date?.getTime() ?? 0) - Date.now()) / 3_600_000;
    expect(hours(record?.deleteAt)).toBeGreaterThan(23.9);
    expect(hours(record?.deleteAt)).toBeLessThanOrEqual(24);
    expect(hours(window?.deleteAt)).toBeGreaterThan(12);
    expect(hours(window?.deleteAt)).toBeLessThanOrEqual(12 + 1 / 6);
  });

  describe("on this server", () => {
    // MongoDB's TTL monitor runs every 60 s; the test image runs DocumentDB's TTL task every second.
    it("delete a document once its date has passed, and only that one", { timeout: 150_000 }, async () => {
      await createTtlIndex(mongo.db, "expiring", 0);
      const expiring = mongo.db.collection<{ _id: string; deleteAt: Date }>("expiring");
      await expiring.insertMany([
        { _id: "past", deleteAt: new Date(Date.now() - 1_000) },
        { _id: "future", deleteAt: new Date(Date.now() + 3_600_000) },
      ]);

      await expect.poll(() => expiring.countDocuments({ _id: "past" }), { timeout: 140_000, interval: 250 }).toBe(0);
      expect(await expiring.countDocuments({ _id: "future" })).toBe(1);
    });
  });
});

describeMongo("webhook messages and attempts expire", () => {
  let mongo: FreshMongoDatabase;
  beforeEach(async () => {
    mongo = await freshMongoDatabase("ttl_webhooks");
    await prepareMongoDatabase(mongo.db);
  });
  afterEach(async () => {
    await mongo?.close();
  });

  it("attempts and settled messages get a deletion date 7 days ahead (wall clock); pending messages none", async () => {
    const stores = mongoStoresFor(mongo.db, async () => {});
    const at = new Date("2026-11-21T12:00:00.000Z");
    const message = {
      subscriptionId: 1,
      eventId: "evt_1",
      type: "order.placed" as const,
      payload: "{}",
      state: "pending" as const,
      attempts: 0,
      nextAttemptAt: at,
      createdAt: at,
    };
    await stores.webhookMessages.enqueue([
      { ...message, id: "settled" },
      { ...message, id: "pending" },
    ]);
    await stores.webhookMessages.claimDue(at, { owner: "w", until: new Date(at.getTime() + 60_000) }, 2);
    await stores.webhookMessages.settle("settled", "w", { state: "delivered", attempts: 1 });
    await stores.webhookMessages.settle("pending", "w", { state: "pending", attempts: 1, nextAttemptAt: at });
    await stores.deliveryAttempts.record({
      subscriptionId: 1,
      messageId: "settled",
      type: "order.placed",
      attempt: 1,
      at,
      status: 204,
      error: undefined,
      responseBody: "",
      durationMs: 3,
    });
    const week = 7 * 24 * 3_600_000;
    const deleteAtOf = async (collection: string, filter: object) =>
      ((await mongo.db.collection(collection).findOne(filter)) as { deleteAt?: Date } | null)?.deleteAt?.getTime();
    for (const deleteAt of [
      await deleteAtOf("webhook_messages", { _id: "settled" }),
      await deleteAtOf("webhook_attempts", {}),
    ]) {
      expect(Math.abs(deleteAt! - (Date.now() + week))).toBeLessThan(60_000);
    }
    expect(await deleteAtOf("webhook_messages", { _id: "pending" })).toBeUndefined();
  });
});
