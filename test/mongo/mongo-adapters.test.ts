/**
 * What the shared contracts cannot see: how the MongoDB adapters talk to the server (documents, commands, round
 * trips, error mapping, housekeeping).
 */
import net from "node:net";
import {
  BSON,
  MongoClient,
  MongoNetworkTimeoutError,
  MongoServerError,
  type CommandStartedEvent,
  type CommandSucceededEvent,
  type Db,
} from "mongodb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isDuplicateKeyError } from "../../adapters/mongo/duplicate-key.ts";
import { MongoRateLimiter } from "../../adapters/mongo/mongo-rate-limiter.ts";
import {
  connectMongoStores,
  prepareMongoDatabase,
  mongoClientOptions,
  mongoStoresFor,
} from "../../adapters/mongo/mongo-stores.ts";
import { guarded, isStoreOutage } from "../../adapters/mongo/store-unavailable.ts";
import { reserveSeeing } from "../../core/pets/stock-writes.ts";
import type { WindowSpec } from "../../core/rate-limiting/rate-limiter.port.ts";
import { DomainError } from "../../core/shared/domain-error.ts";
import type { Stores } from "../../core/stores.ts";
import { aCategory, anApiKey, anOrder, aPet } from "../contracts/mothers.ts";
import { ManualClock } from "../support/manual-clock.ts";
import {
  describeMongo,
  freshMongoDatabase,
  mongoUrl,
  type FreshMongoDatabase,
  watchedMongoPerTest,
} from "../support/mongo.ts";
import { startTestPetstore } from "../support/test-petstore.ts";

/** Windows far ahead: a window's end lies in the future, so no TTL index deletes a document during a test. */
const windowsStart = Date.parse("2100-01-01T00:00:00.000Z");
const minute = (n: number, limit: number): WindowSpec => ({
  key: `m${n}`,
  limit,
  resetsAt: new Date(windowsStart + (n + 1) * 60_000),
});
const day = (n: number, limit: number): WindowSpec => ({
  key: `d${n}`,
  limit,
  resetsAt: new Date(windowsStart + (n + 1) * 86_400_000),
});

describeMongo("MongoDB adapters, seen from the server", () => {
  const server = watchedMongoPerTest("mongo-adapters");
  let mongo: FreshMongoDatabase;
  let monitored: MongoClient;
  let db: Db;
  let stores: Stores;
  beforeEach(() => ({ mongo, monitored, db, stores } = server.current()));
  const { commandsOf } = server;

  describe("documents", () => {
    it("use the numeric id as _id, BSON dates, and leave undefined fields out instead of storing null", async () => {
      await stores.orders.insert(anOrder({ id: 1, shipDate: undefined }));
      await stores.orders.insert(anOrder({ id: 2 }));
      await stores.categories.add(aCategory({ id: 1, name: "Dogs", description: undefined }));
      await stores.pets.insert(
        aPet({
          id: 1,
          holdCount: 1,
          heldUnits: 2,
          marks: [{ orderId: 7, kind: "reserve", units: 2, since: new Date("2026-11-21T12:00:00.000Z"), nonce: "n" }],
        }),
      );
      await stores.apiKeys.add(anApiKey({ id: 1 }));

      const orders = mongo.db.collection<{ _id: number; shipDate?: Date }>("orders");
      expect(await orders.findOne({ _id: 1 })).toEqual({
        _id: 1,
        petId: 1,
        quantity: 1,
        state: "open",
        placedBy: 1,
        revision: 1,
        createdAt: new Date("2026-11-21T12:00:00.000Z"),
        outbox: [],
      });
      expect((await orders.findOne({ _id: 2 }))?.shipDate).toBeInstanceOf(Date);
      expect(await mongo.db.collection<{ _id: number }>("categories").findOne({ _id: 1 })).toEqual({
        _id: 1,
        name: "Dogs",
        nameKey: "dogs",
        revision: 1,
      });
      expect(await mongo.db.collection<{ _id: number }>("pets").findOne({ _id: 1 })).toEqual({
        _id: 1,
        name: "Rex",
        nameKey: "rex",
        nameOrder: "rex",
        categoryId: 1,
        status: "available",
        revision: 1,
        stock: 0,
        holdCount: 1,
        heldUnits: 2,
        marks: { r7: { u: 2, s: new Date("2026-11-21T12:00:00.000Z"), n: "n" } },
        markCount: 1,
        fences: {},
        outbox: [],
      });
      const key = await mongo.db.collection<{ _id: number }>("api_keys").findOne({ _id: 1 });
      expect(Object.keys(key ?? {}).sort()).toEqual(
        ["_id", "activeSecretHash", "createdAt", "label", "plan", "recentBans", "role", "secretHash"].sort(),
      );
    });

    it("drop a cleared ship date from the document", async () => {
      await stores.orders.insert(anOrder({ id: 1 }));
      await stores.orders.changeShipDate({ orderId: 1, shipDate: undefined, events: [] });

      expect(await mongo.db.collection<{ _id: number }>("orders").findOne({ _id: 1 })).not.toHaveProperty("shipDate");
    });
  });

  describe("unique indexes", () => {
    it("map a duplicate category name to category_name_taken, on insert and on rename", async () => {
      await stores.categories.add(aCategory({ id: 1, name: "Dogs" }));
      await stores.categories.add(aCategory({ id: 2, name: "Cats" }));

      const onInsert = await stores.categories.add(aCategory({ id: 3, name: "DOGS" })).catch((e: unknown) => e);
      const onRename = await stores.categories.replace(2, { name: "dogs" }).catch((e: unknown) => e);

      for (const error of [onInsert, onRename]) {
        expect(error).toBeInstanceOf(DomainError);
        expect(error).toMatchObject({ code: "category_name_taken" });
      }
    });

    it("check names with the index alone: no read before the write", async () => {
      expect(await commandsOf(() => stores.categories.add(aCategory({ id: 1, name: "Dogs" })))).toEqual([
        "insert categories",
      ]);
      expect(await commandsOf(() => stores.categories.replace(1, { name: "Hounds" }))).toEqual([
        "findAndModify categories",
      ]);
    });

    it("allow one active key per secret hash, and let a revoked key's secret be issued again", async () => {
      await stores.apiKeys.add(anApiKey({ id: 1, secretHash: "same" }));

      const duplicate = await stores.apiKeys.add(anApiKey({ id: 2, secretHash: "same" })).catch((e: unknown) => e);
      expect(isDuplicateKeyError(duplicate)).toBe(true);

      await stores.apiKeys.revoke(1, new Date("2026-11-21T12:00:00.000Z"));
      await stores.apiKeys.add(anApiKey({ id: 2, secretHash: "same" }));
      expect((await stores.apiKeys.activeOfSecretHash("same"))?.id).toBe(2);
    });
  });

  describe("single-document atomic steps", () => {
    it("reserve is one conditional findAndModify per variant tried; a refusal is explained by one read", async () => {
      await stores.pets.insert(aPet({ id: 1, stock: 3 }));
      const clock = new ManualClock();

      const reserve = (orderId: number, units: number) =>
        reserveSeeing(stores.pets, clock, 1, orderId, units, `n${orderId}`);
      expect(await commandsOf(() => reserve(10, 2))).toEqual(["findAndModify pets"]);
      expect(await commandsOf(() => reserve(11, 2))).toEqual(["findAndModify pets", "findAndModify pets", "find pets"]);
      expect(await commandsOf(() => reserve(12, 1))).toEqual(["findAndModify pets", "findAndModify pets"]);
      expect(await stores.pets.ofId(1)).toMatchObject({ stock: 0, status: "pending" });
    });

    it("replaces settings with one conditional update that compares limits field by field, not as a document", async () => {
      await stores.apiKeys.add(anApiKey({ id: 1, plan: "enterprise", limits: { perMinute: 7, perDay: 70 } }));
      await mongo.db
        .collection("api_keys")
        .updateOne({ _id: 1 as never }, { $set: { limits: { perDay: 70, perMinute: 7 } } });
      const read = {
        label: "storefront",
        role: "customer",
        plan: "enterprise",
        limits: { perMinute: 7, perDay: 70 },
      } as const;

      expect(
        await commandsOf(() => stores.apiKeys.replaceSettings({ id: 1, ...read, label: "renamed" }, read)),
      ).toEqual(["update api_keys"]);
      expect(await stores.apiKeys.ofId(1)).toMatchObject({ label: "renamed", limits: { perMinute: 7, perDay: 70 } });
      expect(
        await stores.apiKeys.replaceSettings(
          { id: 1, ...read, label: "stale" },
          { ...read, limits: { perMinute: 7, perDay: 71 } },
        ),
      ).toBe(false);
    });

    it("ids come in blocks of 10, 20, 40, 80, then 100: one findAndModify a block, none in between", async () => {
      const take = async (count: number) => {
        const ids: number[] = [];
        const commands = await commandsOf(async () => {
          for (let i = 0; i < count; i++) ids.push(await stores.ids.next("orders"));
        });
        return { ids, commands };
      };
      const block = ["findAndModify counters"];

      expect(await take(1)).toEqual({ ids: [1], commands: block });
      expect(await take(9)).toEqual({ ids: [2, 3, 4, 5, 6, 7, 8, 9, 10], commands: [] });
      expect((await take(1)).commands).toEqual(block);
      expect((await take(19 + 40 + 80 + 100)).commands).toEqual([...block, ...block, ...block]);
      expect(await take(1)).toEqual({ ids: [251], commands: block });
    });

    it("a copy of a block's counter write that lands late only skips a block", async () => {
      const counters = mongo.db.collection<{ _id: string; value: number }>("counters");
      const sibling = mongoStoresFor(db, async () => {});
      expect(await stores.ids.next("pets")).toBe(1);
      // The same $inc of 10 applied again after its answer, as a driver's retry held on the wire would be.
      await counters.updateOne({ _id: "pets" }, { $inc: { value: 10 } });

      expect(await sibling.ids.next("pets")).toBe(21);
      expect(await stores.ids.next("pets")).toBe(2);
    });

    it("bans with one update, and a second only when old bans are to be forgotten", async () => {
      await stores.apiKeys.add(anApiKey({ id: 1, recentBans: [new Date("2026-11-20T09:00:00.000Z")] }));
      const ban = (at: string, forgetBefore: string) =>
        stores.apiKeys.ban(1, {
          at: new Date(at),
          until: new Date(new Date(at).getTime() + 15 * 60_000),
          forgetBefore: new Date(forgetBefore),
        });

      expect(await commandsOf(() => ban("2026-11-21T12:00:00.000Z", "2026-11-20T08:00:00.000Z"))).toEqual([
        "findAndModify api_keys",
      ]);
      expect(await commandsOf(() => ban("2026-11-21T13:00:00.000Z", "2026-11-20T12:00:00.000Z"))).toEqual([
        "findAndModify api_keys",
        "update api_keys",
      ]);
      expect((await stores.apiKeys.ofId(1))?.recentBans).toEqual([
        new Date("2026-11-21T12:00:00.000Z"),
        new Date("2026-11-21T13:00:00.000Z"),
      ]);
    });
  });

  describe("rate limiter", () => {
    const windowsOf = (minuteNumber: number, minuteLimit: number, dayLimit = 100) => ({
      minute: minute(minuteNumber, minuteLimit),
      day: day(0, dayLimit),
    });

    it("keeps one document per subject and day: the day's shares, the current minute's, one holder per instance", async () => {
      const limiter = new MongoRateLimiter(db);
      for (let i = 0; i < 3; i++) await limiter.consume("key:1", windowsOf(0, 2));

      const stored = await mongo.db
        .collection<{ _id: string; holders: Record<string, unknown> }>("rate_windows")
        .findOne({ _id: "key:1|d0" });
      expect(stored).toEqual({
        _id: "key:1|d0",
        day: 3, // shares of 1 and 2
        dayStrikes: 0,
        minute: { key: "m0", end: minute(0, 2).resetsAt, granted: 2, strikes: 1 },
        holders: expect.any(Object),
        expiresAt: day(0, 100).resetsAt,
        deleteAt: expect.any(Date),
      });
      expect(Object.values(stored!.holders)).toEqual([{ n: 2, d: 3, m: 2, k: "m0" }]);
    });

    it("takes a share in one write and admits from it with none; refuses with a read and a strike, then the strike alone", async () => {
      const fam = "findAndModify rate_windows";
      const limiter = new MongoRateLimiter(db);
      const consume = () => commandsOf(() => limiter.consume("key:1", windowsOf(0, 7, 1_000)));
      // The day's first request creates the document with this instance's first shares (1 unit each).
      expect(await consume()).toEqual(["insert rate_windows"]);
      // The next shares double, but are at most half of what the store has left (and at least 1): 2, 2, 1, 1.
      expect(await consume()).toEqual([fam]);
      expect(await consume()).toEqual([]);
      expect(await consume()).toEqual([fam]);
      expect(await consume()).toEqual([]);
      expect(await consume()).toEqual([fam]);
      expect(await consume()).toEqual([fam]);
      // The minute's 7 are handed out and used: refused after a read, then by the strike alone.
      expect(await consume()).toEqual([fam, "find rate_windows", fam]);
      expect(await consume()).toEqual([fam]);
      // Another instance learns the document exists from its insert.
      const other = new MongoRateLimiter(db);
      expect(await commandsOf(() => other.consume("key:1", windowsOf(1, 7, 1_000)))).toEqual([
        "insert rate_windows",
        "find rate_windows",
        fam,
      ]);
    });

    it("counts exactly across instances, strikes too: never more admitted than the limit", async () => {
      const instances = [new MongoRateLimiter(db), new MongoRateLimiter(db), new MongoRateLimiter(db)];
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => instances[i % 3]!.consume("key:1", windowsOf(0, 20))),
      );
      const admitted = results.filter((r) => r.admitted).length;
      expect(admitted).toBe(20); // each instance kept serving until its shares were used
      const strikes = results.filter((r) => !r.admitted).map((r) => r.strikes);
      expect(strikes.toSorted((a, b) => a - b)).toEqual(Array.from({ length: 60 - admitted }, (_, i) => i + 1));
      expect(await mongo.db.collection<{ _id: string }>("rate_windows").findOne({ _id: "key:1|d0" })).toMatchObject({
        minute: { granted: 20, strikes: 40 },
      });
    });

    it("offers a window known full to the store again when the store no longer refuses it (a raised limit)", async () => {
      const limiter = new MongoRateLimiter(db);
      await limiter.consume("key:1", windowsOf(0, 1));
      expect((await limiter.consume("key:1", windowsOf(0, 1))).admitted).toBe(false);
      expect(await limiter.consume("key:1", windowsOf(0, 5))).toEqual({
        admitted: true,
        counts: { minute: 2, day: 2 },
        strikes: 0,
      });
    });

    it("keeps shares of a bounded number of subjects, forgetting those of ended days first", async () => {
      const limiter = new MongoRateLimiter(db, { subjectsRemembered: 3 });
      for (const subject of ["key:1", "key:2", "key:3", "key:4"]) await limiter.consume(subject, windowsOf(0, 5));
      expect(limiter.rememberedSubjects).toBe(3);
      // A forgotten subject's shares lapse: its holder's units in the store count as used, and it takes new ones.
      const results: Array<{ admitted: boolean }> = [];
      for (let i = 0; i < 5; i++) results.push(await limiter.consume("key:1", windowsOf(0, 5)));
      expect(results.filter((r) => r.admitted).length).toBe(4);
    });

    it("works on a document an earlier version wrote (a counter per minute), and gets replies of a few hundred bytes", async () => {
      const windows = mongo.db.collection<{
        _id: string;
        day: number;
        minutes: Record<string, number>;
        expiresAt: Date;
        deleteAt: Date;
      }>("rate_windows");
      const minutes = Object.fromEntries(Array.from({ length: 1_440 }, (_, i) => [`m${i}`, 5]));
      await windows.insertOne({
        _id: "key:1|d0",
        day: 1_440 * 5,
        minutes,
        expiresAt: day(0, 100_000).resetsAt,
        deleteAt: day(0, 100_000).resetsAt,
      });
      const replies: number[] = [];
      const onReply = (event: CommandSucceededEvent) => {
        if (["findAndModify", "find"].includes(event.commandName))
          replies.push(BSON.calculateObjectSize(event.reply as BSON.Document));
      };
      monitored.on("commandSucceeded", onReply);
      try {
        const limiter = new MongoRateLimiter(db);
        expect((await limiter.consume("key:1", { minute: minute(1_439, 6), day: day(0, 100_000) })).admitted).toBe(
          true,
        );
        const refused = await new MongoRateLimiter(db).consume("key:1", { minute: minute(1_439, 100), day: day(0, 1) });
        expect(refused).toMatchObject({ admitted: false, strikes: 1 });
      } finally {
        monitored.off("commandSucceeded", onReply);
      }
      expect(replies.length).toBeGreaterThanOrEqual(3);
      expect(Math.max(...replies)).toBeLessThanOrEqual(1_024);
    });

    it("reports a limit of 0 as a refusal without counting", async () => {
      expect(await stores.limiter.consume("key:1", { minute: minute(0, 0), day: day(0, 100) })).toEqual({
        admitted: false,
        counts: { minute: 0, day: 0 },
        strikes: 1,
      });
    });
  });
});

describeMongo("MongoDB adapters: the write concern", () => {
  let mongo: FreshMongoDatabase;
  let client: MongoClient;
  const writes: Array<{ command: string; writeConcern: unknown }> = [];

  beforeAll(async () => {
    mongo = await freshMongoDatabase("write-concern");
    // The very options connectMongoStores gives its client, plus command monitoring.
    client = new MongoClient(mongoUrl(), {
      ...mongoClientOptions({ url: mongoUrl(), dbName: mongo.db.databaseName }),
      monitorCommands: true,
    });
    client.on("commandStarted", (event: CommandStartedEvent) => {
      if (event.databaseName !== mongo.db.databaseName) return;
      if (["insert", "update", "delete", "findAndModify", "createIndexes"].includes(event.commandName)) {
        writes.push({
          command: `${event.commandName} ${event.command[event.commandName]}`,
          writeConcern: event.command.writeConcern,
        });
      }
    });
    await client.connect();
  });
  afterAll(async () => {
    await client?.close();
    await mongo?.close();
  });

  it("is majority and journaled on every write the service sends: acknowledged means durable, failover or crash", async () => {
    const db = client.db(mongo.db.databaseName);
    await prepareMongoDatabase(db);
    const t = await startTestPetstore({ stores: mongoStoresFor(db, async () => {}) });
    try {
      const staff = await t.newKey("staff");
      const customer = await t.newKey("customer");
      const category = await t.client.post("/categories", {
        key: staff,
        body: { name: "Dogs" },
        headers: { "idempotency-key": "c-1" },
      });
      const pet = await t.client.post("/pets", { key: staff, body: { name: "Rex", categoryId: category.body.id } });
      await t.client.put(`/store/inventory/${pet.body.id}`, { key: staff, body: { quantity: 2 } });
      const order = await t.client.post("/store/orders", { key: customer, body: { petId: pet.body.id, quantity: 1 } });
      await t.client.patch(`/store/orders/${order.body.id}`, {
        key: staff,
        body: { shipDate: "2026-12-01T00:00:00.000Z" },
      });
      await t.client.delete(`/store/orders/${order.body.id}`, { key: customer });
      await t.client.delete(`/pets/${pet.body.id}`, { key: staff });
      expect([category.status, pet.status, order.status]).toEqual([201, 201, 201]);
    } finally {
      await t.close();
    }
    // No `delete`: a cancelled order and a deleted pet leave their tombstones by an update.
    expect(new Set(writes.map((w) => w.command.split(" ")[0]))).toEqual(
      new Set(["insert", "update", "findAndModify", "createIndexes"]),
    );
    for (const write of writes)
      expect(write, write.command).toEqual({ command: write.command, writeConcern: { w: "majority", j: true } });
  });
});

describe("MongoDB adapters when the server does not answer", () => {
  let closedPort: number;

  beforeAll(async () => {
    closedPort = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
  });

  it("answers service_unavailable from every port, quickly, without the driver's message", async () => {
    const client = new MongoClient(`mongodb://127.0.0.1:${closedPort}/?directConnection=true`, {
      serverSelectionTimeoutMS: 300,
      connectTimeoutMS: 300,
    });
    const stores = mongoStoresFor(client.db("petstore"), () => client.close());
    try {
      const calls: Array<() => Promise<unknown>> = [
        () => stores.pets.ofId(1),
        () => stores.pets.finishCreating(1),
        () => stores.ids.next("orders"),
        () => stores.apiKeys.activeOfSecretHash("h"),
        () => stores.limiter.consume("key:1", { minute: minute(0, 10), day: day(0, 100) }),
        () => stores.health.ping(),
      ];
      for (const call of calls) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(DomainError);
        expect(error).toMatchObject({
          code: "service_unavailable",
          message: "The store is not answering",
          retryAfterSeconds: 5,
        });
      }
    } finally {
      await stores.close();
    }
  });

  it("fails start-up within the configured bound", async () => {
    // Without the bound the driver would keep retrying past the test's own time-out.
    await expect(
      connectMongoStores({ url: `mongodb://127.0.0.1:${closedPort}/`, dbName: "petstore", timeoutMs: 300 }),
    ).rejects.toThrow();
  });

  it("maps outages only: other server errors pass through unchanged", async () => {
    expect(isStoreOutage(new MongoNetworkTimeoutError("timed out"))).toBe(true);
    expect(isStoreOutage(new MongoServerError({ code: 91, errmsg: "shutdown in progress" }))).toBe(true);
    const badValue = new MongoServerError({ code: 2, errmsg: "bad value" });
    await expect(guarded(() => Promise.reject(badValue))).rejects.toBe(badValue);
  });

  it("maps what the test engine answers while its PostgreSQL restarts or recovers to an outage, and nothing else of code 1", () => {
    for (const text of [
      "the database system is in recovery mode",
      "the database system is not yet accepting connections",
      "the database system is starting up",
      "terminating connection due to administrator command",
      "write failed: write unix @->/var/run/postgresql/.s.PGSQL.5432: write: broken pipe",
      "failed to connect to `user=postgres database=postgres`: dial error: dial unix /var/run/postgresql/.s.PGSQL.5432: connect: no such file or directory",
      "unexpected EOF",
    ]) {
      expect(isStoreOutage(new MongoServerError({ code: 1, errmsg: text })), text).toBe(true);
    }
    expect(
      isStoreOutage(
        new MongoServerError({ code: 1, errmsg: 'duplicate key value violates unique constraint "collection_pk_4"' }),
      ),
    ).toBe(false);
    expect(isStoreOutage(new MongoServerError({ code: 2, errmsg: "the database system is starting up" }))).toBe(false);
  });

  it("recognises duplicate keys as MongoDB and the test engine (FerretDB v2 on DocumentDB) report them", () => {
    expect(isDuplicateKeyError(new MongoServerError({ code: 11000, errmsg: "E11000 duplicate key error" }))).toBe(true);
    const primaryKey = 'duplicate key value violates unique constraint "collection_pk_4"';
    const uniqueIndex = 'conflicting key value violates exclusion constraint "documents_rum_index_7"';
    expect(isDuplicateKeyError(new MongoServerError({ code: 1, errmsg: primaryKey }))).toBe(true);
    expect(isDuplicateKeyError(new MongoServerError({ code: 1, errmsg: uniqueIndex }))).toBe(true);
    expect(isDuplicateKeyError(new MongoServerError({ code: 1, errmsg: "something else" }))).toBe(false);
    expect(isDuplicateKeyError(new MongoServerError({ code: 2, errmsg: primaryKey }))).toBe(false);
  });
});
