/**
 * Every network-level failure of the driver is a store outage: 503 `service_unavailable` with `Retry-After`, never a
 * 500. Each failure is caused for real, through the fault proxy (test/chaos/fault-proxy.ts) between a driver and the
 * run's MongoDB server: first on a bare driver, to see the error object it throws and check the classifier on it, then
 * through a petstore, to see the answer.
 */
import net from "node:net";
import { once } from "node:events";
import {
  MongoClient,
  MongoError,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
} from "mongodb";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectMongoStores } from "../../adapters/mongo/mongo-stores.ts";
import { guarded, isStoreOutage } from "../../adapters/mongo/store-unavailable.ts";
import { FaultProxy, anyCommand, writeCommand } from "../chaos/fault-proxy.ts";
import { expectError, expectRateLimitHeaders } from "../support/http-assertions.ts";
import { describeMongo, freshMongoDatabase, mongoUrl, type FreshMongoDatabase } from "../support/mongo.ts";
import { startTestPetstore, type TestPetstore, type TestResponse } from "../support/test-petstore.ts";

/** The run's server as "host:port", for the proxy to forward to. */
const serverAddress = (): string => new URL(mongoUrl()).host;

/** What `run` threw (the test fails if it did not throw). */
const thrownBy = async (run: () => Promise<unknown>): Promise<unknown> => {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected the operation to fail");
};

/** No retries and a short bound: each fault reaches the caller as the driver's own error. */
const bareOptions = {
  serverSelectionTimeoutMS: 1_000,
  connectTimeoutMS: 1_000,
  socketTimeoutMS: 1_000,
  retryReads: false,
  retryWrites: false,
};

describe("a store operation's error as guarded answers it", () => {
  it("a write the test engine aborted as a deadlock's victim (wrote nothing) is service_unavailable, not a 500", async () => {
    // As FerretDB reports PostgreSQL's 40P01: an insert retried by the driver can meet its first copy still running.
    const victim = new MongoServerError({ message: "ERROR: deadlock detected (SQLSTATE 40P01)", code: 1 });
    expect(await thrownBy(() => guarded(() => Promise.reject(victim)))).toMatchObject({
      code: "service_unavailable",
    });
  });

  it("any other server error propagates unchanged (a bug, answered 500)", async () => {
    const other = new MongoServerError({ message: "unknown operator: $frob", code: 2 });
    expect(await thrownBy(() => guarded(() => Promise.reject(other)))).toBe(other);
  });
});

describeMongo("store errors caused through a fault proxy", () => {
  let proxy: FaultProxy;
  let database: FreshMongoDatabase;
  beforeAll(async () => {
    database = await freshMongoDatabase("store_errors");
    await database.db.collection("things").insertOne({ n: 0 });
  });
  afterAll(async () => {
    await database?.close();
  });

  describe("the driver's errors are outages", () => {
    let client: MongoClient;
    const things = () => client.db(database.db.databaseName).collection("things");
    afterEach(async () => {
      await client?.close();
      await proxy?.close();
    });
    const connect = async (options: Record<string, unknown> = {}) => {
      proxy = await FaultProxy.start({ target: serverAddress() });
      client = new MongoClient(proxy.url(), { ...bareOptions, ...options });
      await things().findOne({});
    };

    it("a connection closed by the server (FIN) before or after it applied the command", async () => {
      await connect();
      for (const when of ["before", "after"] as const) {
        void proxy.arm({ kind: "cut", when, how: "fin" }, writeCommand("things"));
        const error = await thrownBy(() => things().updateOne({}, { $inc: { n: 1 } }));
        expect(error).toBeInstanceOf(MongoNetworkError);
        expect(isStoreOutage(error)).toBe(true);
      }
    });

    it("a connection reset (RST) during a command: read ECONNRESET", async () => {
      await connect();
      void proxy.arm({ kind: "cut", when: "before", how: "rst" }, writeCommand("things"));
      const error = await thrownBy(() => things().updateOne({}, { $inc: { n: 1 } }));
      expect(error).toBeInstanceOf(MongoNetworkError);
      expect((error as Error).cause).toMatchObject({ code: "ECONNRESET" });
      expect(isStoreOutage(error)).toBe(true);
    });

    it("an idle pooled connection reset, then written on: Node's ECONNRESET, rethrown unwrapped by the driver", async () => {
      await connect();
      proxy.cutAll("rst");
      const error = await thrownBy(() => things().insertOne({ n: 1 }));
      // Not a MongoError at all: what the classifier missed before (a 500).
      expect(error).not.toBeInstanceOf(MongoError);
      expect(error).toMatchObject({ code: "ECONNRESET" });
      expect(isStoreOutage(error)).toBe(true);
    });

    it("a write on a socket the server has ended: Node's EPIPE, the error the driver rethrows unwrapped", async () => {
      // The driver writes with socket.write and waits for "drain" or "error"; a socket ended by its peer fails that
      // write with this object (net's writeAfterFIN), which reaches the caller as it is.
      const server = net.createServer((socket) => socket.end()).listen(0, "127.0.0.1");
      await once(server, "listening");
      const socket = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
      socket.resume();
      await once(socket, "end");
      socket.write("x");
      const [error] = (await once(socket, "error").catch((e: unknown) => [e])) as [NodeJS.ErrnoException];
      server.close();
      expect(error).toMatchObject({ code: "EPIPE" });
      expect(isStoreOutage(error)).toBe(true);
    });

    it("no answer within the socket time-out: a network timeout", async () => {
      await connect();
      void proxy.arm({ kind: "blackhole" }, anyCommand);
      const error = await thrownBy(() => things().findOne({}));
      expect(error).toBeInstanceOf(MongoNetworkTimeoutError);
      expect(isStoreOutage(error)).toBe(true);
    });

    it("connections refused: a server selection time-out whose cause is ECONNREFUSED", async () => {
      await connect();
      await proxy.refuse(true);
      proxy.cutAll("fin");
      // The pooled connection fails first (closed); then the server is unknown and cannot be reached again.
      expect(isStoreOutage(await thrownBy(() => things().findOne({})))).toBe(true);
      const error = await thrownBy(() => things().findOne({}));
      expect(error).toBeInstanceOf(MongoServerSelectionError);
      expect(String((error as MongoServerSelectionError).reason?.servers.values().next().value?.error)).toMatch(
        /ECONNREFUSED|closed/,
      );
      expect(isStoreOutage(error)).toBe(true);
    });

    it("a request waiting for a pooled connection when the pool is cleared", async () => {
      await connect({ maxPoolSize: 1 });
      // The first command holds the only connection until it is cut; the second waits for it in the pool's queue.
      void proxy.arm({ kind: "cut", when: "before", how: "fin", afterMs: 300 }, anyCommand);
      const first = thrownBy(() => things().findOne({}));
      const second = thrownBy(() => things().findOne({ n: 0 }));
      expect(await first).toBeInstanceOf(MongoNetworkError);
      const error = await second;
      expect((error as Error).name).toBe("MongoPoolClearedError");
      expect(isStoreOutage(error)).toBe(true);
    });
  });

  it("through the proxy's replica-set handshake the driver retries a write once after a network error", async () => {
    proxy = await FaultProxy.start({ target: serverAddress(), replicaSet: "rs0" });
    const client = new MongoClient(proxy.url(), { serverSelectionTimeoutMS: 2_000, socketTimeoutMS: 2_000 });
    try {
      const things = client.db(database.db.databaseName).collection<{ _id: string; n: number }>("retried");
      await things.insertOne({ _id: "counter", n: 0 });
      const seen = proxy.seen.length;
      void proxy.arm({ kind: "cut", when: "after", how: "fin" }, writeCommand("retried"));
      // The caller sees success: the driver sent the update again, with the same transaction number.
      expect((await things.updateOne({ _id: "counter" }, { $inc: { n: 1 } })).modifiedCount).toBe(1);
      const updates = proxy.seen.slice(seen).filter((c) => c.name === "update");
      expect(updates).toHaveLength(2);
      expect(updates[0]!.txnNumber).toBeDefined();
      expect(updates[1]!.txnNumber).toBe(updates[0]!.txnNumber);
      expect(proxy.stats.retriedWrites).toBe(1);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  describe("a petstore whose store connection fails answers 503 with Retry-After", () => {
    let t: TestPetstore;
    let staff: string;
    let petId: number;
    let dbName: string;
    beforeAll(async () => {
      proxy = await FaultProxy.start({ target: serverAddress() });
      dbName = `${database.db.databaseName}_http`;
      t = await startTestPetstore({
        stores: await connectMongoStores({ url: proxy.url(), dbName, timeoutMs: 1_000 }),
      });
      staff = await t.newKey("staff", "enterprise", { perMinute: 1_000_000, perDay: 100_000_000 });
      const category = await t.client.post("/categories", { key: staff, body: { name: "Errors" } });
      const pet = await t.client.post("/pets", { key: staff, body: { name: "Ferret", categoryId: category.body.id } });
      petId = pet.body.id as number;
      expect((await t.client.put(`/store/inventory/${petId}`, { key: staff, body: { quantity: 1_000 } })).status).toBe(
        200,
      );
    });
    afterAll(async () => {
      await proxy?.refuse(false);
      await t?.close();
      await database.client.db(dbName).dropDatabase();
      await proxy?.close();
    });

    const order = () => t.client.post("/store/orders", { key: staff, body: { petId, quantity: 1 } });
    const expectUnavailable = (res: TestResponse, what: string) => {
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(503);
      expectError(res, 503, "service_unavailable");
      expect(res.headers.get("retry-after"), what).toMatch(/^[1-9]\d*$/);
      expectRateLimitHeaders(res);
    };
    /** The store answers again: the same petstore serves an order. */
    const servesAgain = async () => {
      for (let attempt = 0; attempt < 50; attempt++) {
        if ((await order()).status === 201) return;
      }
      throw new Error("no order placed in 50 attempts after the fault");
    };

    it.each([
      ["FIN before the reserve applied", { kind: "cut", when: "before", how: "fin" }],
      ["FIN after the reserve applied (answer lost)", { kind: "cut", when: "after", how: "fin" }],
      ["RST before the reserve applied", { kind: "cut", when: "before", how: "rst" }],
      ["RST after the reserve applied (answer lost)", { kind: "cut", when: "after", how: "rst" }],
      ["no answer to the reserve (network timeout)", { kind: "blackhole" }],
    ] as const)("%s", async (what, fault) => {
      const fired = proxy.arm(fault, writeCommand("pets"));
      expectUnavailable(await order(), what);
      expect((await fired).collection).toBe("pets");
      await servesAgain();
    });

    it("idle pooled connections reset (RST), then used: Node's ECONNRESET from the driver", async () => {
      expect(proxy.cutAll("rst")).toBeGreaterThan(0);
      expectUnavailable(await order(), "after the reset");
      await servesAgain();
    });

    it("the server refusing connections (server selection time-out), and /readyz meanwhile", async () => {
      await proxy.refuse(true);
      proxy.cutAll("fin");
      try {
        expectUnavailable(await order(), "refused");
        expectError(await t.client.get("/readyz"), 503, "service_unavailable");
      } finally {
        await proxy.refuse(false);
      }
      await servesAgain();
      expect((await t.client.get("/readyz")).status).toBe(200);
    });
  });
});
