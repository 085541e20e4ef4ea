/**
 * Rate-limit shares on MongoDB across instances: never more admitted than the limit, whatever instances hold, give
 * back or lose; late copies of share writes refused; window documents the same size all day.
 * docs/decisions/leased-rate-limit-shares.md.
 */
import { BSON, MongoClient, type CommandStartedEvent, type Document } from "mongodb";
import { afterEach, beforeEach, expect, it } from "vitest";
import { MongoRateLimiter } from "../../adapters/mongo/mongo-rate-limiter.ts";
import { mongoStoresFor, prepareMongoDatabase } from "../../adapters/mongo/mongo-stores.ts";
import type { Consumption } from "../../core/rate-limiting/rate-limiter.port.ts";
import type { Windows, WindowSpec } from "../../core/rate-limiting/windows.ts";
import { describeMongo, freshMongoDatabase, mongoUrl, type FreshMongoDatabase } from "../support/mongo.ts";

/** Windows far ahead: no TTL index deletes a document during a test. */
const windowsStart = Date.parse("2100-01-01T00:00:00.000Z");
/** Keys as the core makes them: minutes since 1970, the same length all day. */
const minute = (n: number, limit: number): WindowSpec => ({
  key: `m${windowsStart / 60_000 + n}`,
  limit,
  resetsAt: new Date(windowsStart + (n + 1) * 60_000),
});
const day = (limit: number): WindowSpec => ({ key: "d0", limit, resetsAt: new Date(windowsStart + 86_400_000) });
const windows = (minuteLimit: number, dayLimit = 100_000, n = 0): Windows => ({
  minute: minute(n, minuteLimit),
  day: day(dayLimit),
});

const admittedOf = (results: Consumption[]) => results.filter((r) => r.admitted).length;

describeMongo("rate-limit shares across instances on MongoDB", () => {
  let mongo: FreshMongoDatabase;
  beforeEach(async () => {
    mongo = await freshMongoDatabase("rate-shares");
    await prepareMongoDatabase(mongo.db);
  });
  afterEach(async () => {
    await mongo.close();
  });
  const documentOf = (subject = "key:1") =>
    mongo.db
      .collection<{ _id: string; day: number; minute: { key: string; granted: number } }>("rate_windows")
      .findOne({ _id: `${subject}|d0` });

  it("two instances sharing a key admit exactly its limit when both keep serving, in turn or at once", async () => {
    const a = new MongoRateLimiter(mongo.db);
    const b = new MongoRateLimiter(mongo.db);
    const inTurn: Consumption[] = [];
    // Each instance gets more requests than the limit, so it can use whatever it holds.
    for (let i = 0; i < 140; i++) inTurn.push(await [a, b][i % 2]!.consume("key:1", windows(60)));
    const atOnce = await Promise.all(
      Array.from({ length: 140 }, (_, i) => [a, b][i % 2]!.consume("key:2", windows(60))),
    );

    expect(admittedOf(inTurn)).toBe(60);
    expect(admittedOf(atOnce)).toBeLessThanOrEqual(60);
    // Refused early by at most what the other instance still holds: each instance used its own shares up.
    for (const subject of ["key:1", "key:2"]) {
      expect(await documentOf(subject)).toMatchObject({ minute: { granted: 60 } });
    }
    expect(admittedOf(atOnce)).toBe(60);
  });

  it("never admits more than the limit when one instance is killed mid-window holding shares; what it held lapses", async () => {
    const killed = new MongoRateLimiter(mongo.db);
    const survivor = new MongoRateLimiter(mongo.db);
    const byKilled = admittedOf(
      await Promise.all(Array.from({ length: 20 }, () => killed.consume("key:1", windows(60)))),
    );
    const held = (await documentOf())!.minute.granted;
    // Dropped without giving back: as kill -9 would.
    const bySurvivor: Consumption[] = [];
    for (let i = 0; i < 100; i++) bySurvivor.push(await survivor.consume("key:1", windows(60)));

    expect(byKilled).toBe(20);
    expect(held).toBeGreaterThan(20); // the killed instance held more than it used
    expect(byKilled + admittedOf(bySurvivor)).toBeLessThanOrEqual(60);
    expect(byKilled + admittedOf(bySurvivor)).toBe(60 - (held - byKilled));
    // The next minute starts afresh: the lapsed share is gone with its window.
    expect(
      admittedOf(
        await Promise.all(Array.from({ length: 70 }, () => survivor.consume("key:1", windows(60, 100_000, 1)))),
      ),
    ).toBe(60);
  });

  it("an instance that stops gracefully (its stores closed) gives its shares back, and the other instance admits them", async () => {
    const stopping = mongoStoresFor(mongo.db, async () => {});
    const staying = new MongoRateLimiter(mongo.db);
    const byStopping = admittedOf(
      await Promise.all(Array.from({ length: 20 }, () => stopping.limiter.consume("key:1", windows(60, 100)))),
    );
    expect((await documentOf())!.minute.granted).toBeGreaterThan(20); // it held more than it used
    await stopping.close();
    const byStaying: Consumption[] = [];
    for (let i = 0; i < 100; i++) byStaying.push(await staying.consume("key:1", windows(60, 100)));

    expect(byStopping + admittedOf(byStaying)).toBe(60);
    expect(await documentOf()).toMatchObject({ minute: { granted: 60 } });
  });

  it("a lowered limit takes effect on the next request: a share taken under the old limit admits nothing past the new one", async () => {
    const a = new MongoRateLimiter(mongo.db);
    const b = new MongoRateLimiter(mongo.db);
    for (let i = 0; i < 10; i++) await [a, b][i % 2]!.consume("key:1", windows(100));
    // Both hold unused shares taken under 100; the limit drops to 12.
    const after: Consumption[] = [];
    for (let i = 0; i < 20; i++) after.push(await [a, b][i % 2]!.consume("key:1", windows(12)));

    expect(admittedOf(after)).toBeLessThanOrEqual(2);
    expect(after.filter((r) => !r.admitted).every((r) => r.counts.minute >= 12)).toBe(true);
    // Raised again, the shares given back are offered anew.
    expect((await a.consume("key:1", windows(100))).admitted).toBe(true);
  });

  it("a copy of a share's write or of a return that lands late is refused by its condition", async () => {
    const client = await new MongoClient(mongoUrl(), { monitorCommands: true }).connect();
    try {
      const sent: Document[] = [];
      client.on("commandStarted", (event: CommandStartedEvent) => {
        if (["findAndModify", "update"].includes(event.commandName)) sent.push(event.command);
      });
      const a = new MongoRateLimiter(client.db(mongo.db.databaseName));
      await a.consume("key:1", windows(60)); // creates the document with the first shares
      await a.consume("key:1", windows(60)); // takes the next shares: one findAndModify
      const take = sent.find((command) => "findAndModify" in command)!;
      await a.returnShares(); // it holds one unit of the minute and of the day
      const giveBack = sent.find((command) => command.update === "rate_windows")!;
      const before = await documentOf();

      const replay = (command: Document) => {
        const { lsid: _lsid, $clusterTime: _time, $db: _db, txnNumber: _txn, ...copy } = command;
        return mongo.db.command(copy);
      };
      expect(await replay(take)).toMatchObject({ value: null });
      expect(await replay(giveBack)).toMatchObject({ n: 0, nModified: 0 });
      expect(await documentOf()).toEqual(before);
    } finally {
      await client.close();
    }
  });

  it("a free key's whole minute costs 11 share writes for its 60 requests; then a refusal a write and a read, and a strike alone", async () => {
    const client = await new MongoClient(mongoUrl(), { monitorCommands: true }).connect();
    try {
      const commands: string[] = [];
      client.on("commandStarted", (event: CommandStartedEvent) => {
        if (event.databaseName === mongo.db.databaseName) commands.push(event.commandName);
      });
      const limiter = new MongoRateLimiter(client.db(mongo.db.databaseName));
      for (let i = 0; i < 60; i++) expect((await limiter.consume("key:1", windows(60, 1_000))).admitted).toBe(true);

      // Shares of 1 (the document's insert), 2, 4, 8, 16, 14, 7, 4, 2, 1 and 1.
      expect(commands).toEqual(["insert", ...Array.from({ length: 10 }, () => "findAndModify")]);
      commands.length = 0;
      expect((await limiter.consume("key:1", windows(60, 1_000))).admitted).toBe(false);
      expect((await limiter.consume("key:1", windows(60, 1_000))).admitted).toBe(false);
      expect(commands).toEqual(["findAndModify", "find", "findAndModify", "findAndModify"]);
    } finally {
      await client.close();
    }
  });

  it("a share whose answer was lost is found by the next write and used: a lone instance still admits exactly the limit", async () => {
    let loseNext = false;
    const lossy = new Proxy(mongo.db, {
      get(db, name) {
        if (name !== "collection") return Reflect.get(db, name, db) as unknown;
        return (collectionName: string) => {
          const collection = db.collection(collectionName);
          return new Proxy(collection, {
            get(target, method) {
              if (method !== "findOneAndUpdate") return Reflect.get(target, method, target) as unknown;
              return async (...args: Parameters<typeof collection.findOneAndUpdate>) => {
                const applied: unknown = await target.findOneAndUpdate(...args);
                if (!loseNext) return applied;
                loseNext = false;
                throw new Error("the answer was lost");
              };
            },
          });
        };
      },
    });
    const limiter = new MongoRateLimiter(lossy);
    const results: Consumption[] = [];
    for (let i = 0; i < 3; i++) results.push(await limiter.consume("key:1", windows(20)));
    loseNext = true; // the next share (4 units) applies in the store, its answer does not arrive
    await expect(limiter.consume("key:1", windows(20))).rejects.toThrow("the answer was lost");
    for (let i = 0; i < 30; i++) results.push(await limiter.consume("key:1", windows(20)));

    expect(admittedOf(results)).toBe(20);
    expect(results.filter((r) => r.admitted).map((r) => r.counts.minute)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    expect(await documentOf()).toMatchObject({ minute: { granted: 20 } });
  });

  it("an instance whose clock lags a minute counts its requests in the newer minute the store holds", async () => {
    const ahead = new MongoRateLimiter(mongo.db);
    const behind = new MongoRateLimiter(mongo.db);
    for (let i = 0; i < 8; i++) expect((await ahead.consume("key:1", windows(10, 1_000, 1))).admitted).toBe(true);
    const lagging: Consumption[] = [];
    for (let i = 0; i < 5; i++) lagging.push(await behind.consume("key:1", windows(10, 1_000, 0)));

    expect(admittedOf(lagging)).toBe(2);
    expect(await documentOf()).toMatchObject({ minute: { key: minute(1, 10).key, granted: 10 } });
  });

  it("a key's document late in its day is the size it was early: 23 hours of minutes leave no trace", async () => {
    const limiter = new MongoRateLimiter(mongo.db);
    const size = async () => BSON.calculateObjectSize((await documentOf())!);
    await limiter.consume("key:1", windows(60, 100_000, 0));
    const early = await size();

    for (let n = 23; n <= 23 * 60; n += 23) {
      for (let i = 0; i < 3; i++) expect((await limiter.consume("key:1", windows(60, 100_000, n))).admitted).toBe(true);
    }

    expect(await documentOf()).toMatchObject({ minute: { key: minute(23 * 60, 60).key } });
    expect(await size()).toBe(early);
  });
});
