/**
 * After the network comes back, an instance serves again, whatever cuts came before: through the fault proxy
 * (test/chaos/fault-proxy.ts) answering as a replica set, between a petstore and the run's MongoDB server.
 */
import type { Socket } from "node:net";
import { afterEach, expect, it } from "vitest";
import { MongoClient } from "mongodb";
import { reportDriverEvents, type DriverEventSink } from "../../adapters/mongo/driver-events.ts";
import {
  connectMongoStores,
  mongoClientOptions,
  mongoStoresFor,
  servingClient,
  type MongoStoresOptions,
} from "../../adapters/mongo/mongo-stores.ts";
import { watchStuckConnections } from "../../adapters/mongo/stuck-connection-watchdog.ts";
import { FaultProxy } from "../chaos/fault-proxy.ts";
import { describeMongo, mongoUrl } from "../support/mongo.ts";
import { startTestPetstore, type TestPetstore } from "../support/test-petstore.ts";

/** The store's bound: the watchdog acts on a heartbeat or check-out older than 2 × this + 5 s. */
const TIMEOUT_MS = 1_000;
/**
 * How long /readyz is polled after the network is clean. A healthy instance is ready again within a heartbeat or two,
 * and, with the watchdog alone, a wedged monitor is replaced within 7 s (its bound); a broken one never recovers. 60 s is far above
 * both, so only a broken instance (or a machine stalled for a minute) exceeds it.
 */
const READY_WITHIN_MS = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let proxy: FaultProxy | undefined;
let t: TestPetstore | undefined;
afterEach(async () => {
  await t?.close();
  await proxy?.close();
  t = proxy = undefined;
});

/**
 * The serving client less closed-socket-writes.ts: only the watchdog stands between a write stalled on a destroyed
 * socket and a wedge.
 */
const watchdogOnlyClient = (options: MongoStoresOptions & { onDriverEvent: DriverEventSink }) => {
  const client = new MongoClient(options.url, mongoClientOptions(options));
  reportDriverEvents(client, options.onDriverEvent);
  const watchdog = watchStuckConnections(client, 2 * TIMEOUT_MS + 5_000, options.onDriverEvent);
  return {
    client,
    close: async () => {
      watchdog.stop();
      await client.close();
    },
  };
};

/**
 * A petstore whose store client goes through a proxy answering as a replica set; a staff key and a stocked pet. The
 * service's serving client, or one with the watchdog only.
 */
const start = async ({ watchdogOnly = false } = {}) => {
  proxy = await FaultProxy.start({ target: new URL(mongoUrl()).host, replicaSet: "rs0" });
  const dbName = `reconnect_${Math.random().toString(16).slice(2, 10)}`;
  // Prepared directly first (indexes), so the bounds below apply to requests only.
  await (await connectMongoStores({ url: mongoUrl(), dbName })).close();
  const events: { message: string; level: string }[] = [];
  const options = {
    url: proxy.url(),
    dbName,
    timeoutMs: TIMEOUT_MS,
    onDriverEvent: (message: string, _fields: unknown, level: "debug" | "warn" = "debug") =>
      events.push({ message, level }),
  };
  const serving = watchdogOnly ? watchdogOnlyClient(options) : servingClient(options);
  const stores = mongoStoresFor(serving.client.db(dbName), async () => {
    await serving.client.db(dbName).dropDatabase();
    await serving.close();
  });
  t = await startTestPetstore({ stores });
  const staff = await t.newKey("staff", "enterprise", { perMinute: 1_000_000, perDay: 100_000_000 });
  const category = await t.client.post("/categories", { key: staff, body: { name: "Reconnect" } });
  const pet = await t.client.post("/pets", { key: staff, body: { name: "Otter", categoryId: category.body.id } });
  await t.client.put(`/store/inventory/${pet.body.id}`, { key: staff, body: { quantity: 1_000_000 } });
  return { t, proxy, client: serving.client, events, staff, petId: pet.body.id as number };
};
type Started = Awaited<ReturnType<typeof start>>;

/** The driver's own objects, reached into to make its bug happen on purpose. */
interface DriverConnection {
  closed: boolean;
  socket: Socket;
}
interface DriverServer {
  monitor: { s: { state: string }; connection: DriverConnection | null; requestCheck(): void };
  pool: { connections: Iterable<DriverConnection> };
}
const serverOf = (s: Started): DriverServer =>
  (s.client as unknown as { topology: { s: { servers: Map<string, DriverServer> } } }).topology.s.servers.get(
    s.proxy.host,
  )!;

/** Polls /readyz until it answers 200; resolves with the number of polls, or fails past READY_WITHIN_MS. */
const readyAgain = async (petstore: TestPetstore): Promise<void> => {
  const started = performance.now();
  while (performance.now() - started < READY_WITHIN_MS) {
    if ((await petstore.client.get("/readyz")).status === 200) return;
    await sleep(250);
  }
  throw new Error(`/readyz not 200 within ${READY_WITHIN_MS} ms of a clean network`);
};

describeMongo("reconnecting after network cuts", () => {
  it("20 FIN cuts in a row under 40 clients, then a clean network: /readyz is 200 again and orders are placed", async () => {
    const s = await start();
    let running = true;
    const statuses: number[] = [];
    const clients = Array.from({ length: 40 }, async () => {
      for (let n = 0; running && n < 2_000; n++) {
        const res = await s.t.client.post("/store/orders", { key: s.staff, body: { petId: s.petId, quantity: 1 } });
        statuses.push(res.status);
      }
    });
    try {
      for (let cut = 0; cut < 20; cut++) {
        // Each cut waits until the instance has reached the store again (a command through the proxy), at most 2 s.
        await Promise.race([s.proxy.arm({ kind: "cut", when: "before", how: "fin" }, () => true), sleep(2_000)]);
        s.proxy.cutAll("fin");
      }
      s.proxy.disarm();
    } finally {
      running = false;
      await Promise.all(clients);
    }
    await readyAgain(s.t);
    expect(
      (await s.t.client.post("/store/orders", { key: s.staff, body: { petId: s.petId, quantity: 1 } })).status,
    ).toBe(201);
    // Only successes and outages while the cuts went on.
    expect(statuses.filter((status) => status !== 201 && status !== 503)).toEqual([]);
    expect(statuses).toContain(503);
  }, 120_000);

  /**
   * Reaches into the driver to make its bug happen on purpose: the monitor's socket destroyed and, before the socket
   * reports itself closed, a heartbeat requested: it waits for 'drain'. True once `happened` says the wait began.
   */
  const stallMonitor = async (s: Started, happened: (connection: DriverConnection) => boolean) => {
    const monitor = () => serverOf(s).monitor;
    for (let attempt = 0; attempt < 20; attempt++) {
      // Past the driver's 500 ms between heartbeats, so the request runs one at once, while the socket is destroyed.
      await sleep(600);
      const m = monitor();
      const connection = m.connection;
      if (m.s.state !== "idle" || !connection || connection.closed) continue;
      connection.socket.destroy();
      m.requestCheck();
      // The heartbeat's write is issued a few microtasks later; by then the socket is destroyed.
      await sleep(50);
      if (happened(connection)) return true;
    }
    return false;
  };

  /** Every idle pooled socket destroyed and, before they report themselves closed, a ping: it waits for 'drain'. */
  const stallPooledCommand = async (s: Started) => {
    const idle = [...serverOf(s).pool.connections].filter((c) => !c.closed);
    expect(idle.length).toBeGreaterThan(0);
    for (const connection of idle) connection.socket.destroy();
    return {
      idle,
      ping: s.t.stores.health.ping().then(
        () => "answered",
        () => "failed",
      ),
    };
  };

  const closedSocketWrite = { message: "mongodb write on a closed socket failed", level: "warn" };
  const stuck = { message: "mongodb connection stuck: reconnecting", level: "warn" };
  const orderPlaced = async (s: Started) =>
    (await s.t.client.post("/store/orders", { key: s.staff, body: { petId: s.petId, quantity: 1 } })).status;

  it("a heartbeat written on a destroyed socket (the driver waits for 'drain') fails when the socket closes", async () => {
    const s = await start();
    const failed = await stallMonitor(s, () => s.events.some((e) => e.message === closedSocketWrite.message));
    expect(failed, "no heartbeat was written on a destroyed socket").toBe(true);
    // The next network error makes the server Unknown; the monitor, not wedged, makes it known again.
    s.proxy.cutAll("fin");
    await s.t.client.get("/readyz");
    await readyAgain(s.t);
    expect(await orderPlaced(s)).toBe(201);
    expect(s.events).toContainEqual(closedSocketWrite);
    // Without the watchdog's reconnection: the write was failed, not the client replaced.
    expect(s.events).not.toContainEqual(stuck);
    expect(s.events).toContainEqual({ message: "mongodb pool cleared", level: "debug" });
  }, 120_000);

  it("a pooled command written on a destroyed socket fails (503) instead of holding its connection", async () => {
    const s = await start();
    const { ping } = await stallPooledCommand(s);
    // Not bounded by a time-out of ours: the socket's close fails the write.
    expect(await ping).toBe("failed");
    expect(s.events).toContainEqual(closedSocketWrite);
    await readyAgain(s.t);
    expect(await orderPlaced(s)).toBe(201);
    expect(s.events).not.toContainEqual(stuck);
  }, 120_000);

  it("the watchdog alone: a wedged server monitor is replaced", async () => {
    const s = await start({ watchdogOnly: true });
    const wedged = await stallMonitor(
      s,
      (connection) => serverOf(s).monitor.s.state === "monitoring" && connection.socket.listenerCount("drain") > 0,
    );
    expect(wedged, "the monitor could not be wedged").toBe(true);
    // The next network error makes the server Unknown; only a working monitor can make it known again.
    s.proxy.cutAll("fin");
    await s.t.client.get("/readyz");
    await readyAgain(s.t);
    expect(await orderPlaced(s)).toBe(201);
    // What an operator sees: the pool cleared and the server unknown at debug level, the replaced monitor as a warning.
    expect(s.events).toContainEqual({ message: "mongodb pool cleared", level: "debug" });
    expect(s.events).toContainEqual({ message: "mongodb server changed", level: "debug" });
    expect(s.events).toContainEqual(stuck);
    expect(s.events).toContainEqual({ message: "mongodb reconnected", level: "warn" });
  }, 120_000);

  it("the watchdog alone: pooled connections wedged the same way (a command waiting for ever) are replaced", async () => {
    const s = await start({ watchdogOnly: true });
    const { idle, ping } = await stallPooledCommand(s);
    await sleep(50);
    expect(idle.some((c) => c.socket.listenerCount("drain") > 0)).toBe(true);
    // The connection held for good is noticed past the bound (7 s here); polled, with the same generous limit.
    const started = performance.now();
    while (!s.events.some((e) => e.message === stuck.message) && performance.now() - started < READY_WITHIN_MS)
      await sleep(250);
    await readyAgain(s.t);
    expect(await orderPlaced(s)).toBe(201);
    expect(s.events).toContainEqual(stuck);
    expect(s.events).toContainEqual({ message: "mongodb reconnected", level: "warn" });
    // The wedged command itself never ends (the driver's wait has no time-out); only its connection is given up.
    expect(await Promise.race([ping, sleep(0).then(() => "still waiting")])).toBe("still waiting");
  }, 120_000);
});
