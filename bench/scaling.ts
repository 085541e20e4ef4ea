/**
 * Scaling scenarios of `npm run bench` (bench/run.ts): what an order costs as the work in flight grows.
 *
 *   hot-pet        MongoDB: one pet at each number of open orders in BENCH_HOT_OPEN_ORDERS (default 0,10000,100000),
 *                  BENCH_HOT_CLIENTS (12) clients placing orders on it for BENCH_HOT_SECONDS (15) per stage. The open
 *                  orders are written straight into the store (see fillOpenOrders) between stages: over HTTP today's
 *                  layout would take hours to reach 100k. Per stage: orders/s, p50/p99, service CPU per order, engine
 *                  CPU per order (the engine container's cgroup), the pet document's size, its pending events, and the
 *                  engine's memory (the container runs with a 4 GiB cap).
 *   two-instances  MongoDB: one service instance placing orders on two pets, then two instances (one per pet) on
 *                  the same database, the same clients in all, BENCH_HOT_SECONDS each.
 *   memory-orders  memory store: BENCH_MEMORY_ORDERS (300,000) orders over HTTP, each with an Idempotency-Key of its
 *                  own, then BENCH_IDLE_SECONDS (120) idle; the service's RSS and the latency of a plain GET sent every
 *                  20 ms by a prober of its own (a worker thread), during the load and while idle.
 * The MongoDB scenarios start their own engine container (docker, the test image) and need no MONGODB_URL.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import autocannon from "autocannon";
import { BSON, MongoClient, type Db } from "mongodb";
import { freeLoopbackPort } from "../test/support/free-port.ts";
import { SERVICE_NODE_ARGS, startChildServer, type ChildServer } from "./child-server.ts";
import { startEngineContainer, type EngineContainer } from "./engine-container.ts";
import { table } from "./stats.ts";

export const SCALING_SCENARIOS = ["hot-pet", "two-instances", "memory-orders"] as const;
export type ScalingScenario = (typeof SCALING_SCENARIOS)[number];

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const out = (text: string) => process.stdout.write(`${text}\n`);
const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");
const MiB = 2 ** 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Keys {
  staff: string;
  customer: string;
  customerId: number;
}

const call = async (url: string, method: string, path: string, key: string, body?: unknown) => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { "x-api-key": key, "content-type": "application/json" },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`setup ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
};

const newKeys = async (url: string, adminKey: string): Promise<Keys> => {
  const limits = { perMinute: 1_000_000, perDay: 1_000_000_000 };
  const key = (role: string) =>
    call(url, "POST", "/admin/api-keys", adminKey, { label: `bench ${role}`, role, plan: "enterprise", limits });
  const staff = await key("staff");
  const customer = await key("customer");
  return { staff: staff.key as string, customer: customer.key as string, customerId: customer.id as number };
};

/** A pet of its own with a stock no stage sells out. */
const newPet = async (url: string, keys: Keys): Promise<number> => {
  const category = await call(url, "POST", "/categories", keys.staff, { name: `Dogs ${randomUUID().slice(0, 8)}` });
  const pet = await call(url, "POST", "/pets", keys.staff, { name: "Rex", categoryId: category.id });
  await call(url, "PUT", `/store/inventory/${pet.id as number}`, keys.staff, { quantity: 1_000_000 });
  return pet.id as number;
};

interface Load {
  orders: number;
  seconds: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
}

const placeOrders = async (
  url: string,
  key: string,
  petId: number,
  clients: number,
  seconds: number,
): Promise<Load> => {
  const result = await autocannon({
    url: `${url}/store/orders`,
    method: "POST",
    connections: clients,
    duration: seconds,
    sampleInt: 100,
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify({ petId, quantity: 1 }),
  });
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
  if (result.errors + result.timeouts > 0) statuses.errors = result.errors + result.timeouts;
  return {
    orders: result["2xx"],
    seconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statuses,
  };
};

const failures = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .filter(([code]) => !code.startsWith("2"))
    .map(([code, n]) => `${n}×${code}`)
    .join(" ") || "0";

const startMongoService = (engine: EngineContainer, dbName: string, adminKey: string): Promise<ChildServer> =>
  freeLoopbackPort().then((port) =>
    startChildServer(
      here("./service-server.ts"),
      port,
      {
        PETSTORE_ADMIN_KEY: adminKey,
        PETSTORE_LOG_LEVEL: "info",
        PETSTORE_STORE: "mongo",
        MONGODB_URL: engine.url,
        MONGODB_DB: dbName,
      },
      { prefix: [], nodeArgs: SERVICE_NODE_ARGS },
    ),
  );

/**
 * Makes `petId` have `target` open orders, as the service leaves them once placing has finished and the relay has
 * caught up: one `open` order document of one unit each, its hold on the pet, the pet's stock lower by as many, no
 * pending events, ids taken from the orders counter. It writes the layout of adapters/mongo as it is today (holds in
 * the pet document) when the pet has `holds`; otherwise only the orders (a layout that keeps holds on the orders).
 */
const fillOpenOrders = async (db: Db, petId: number, placedBy: number, target: number): Promise<void> => {
  const orders = db.collection<{ _id: number }>("orders");
  const open = await orders.countDocuments({ petId, state: "open" });
  let missing = target - open;
  const pet = await db.collection("pets").findOne({ _id: petId as never }, { projection: { holds: 1 } });
  // Two layouts: a hold per open order on the pet (before), or counters only (docs/consistency.md, "Marks and fences").
  const holdsOnPet = pet !== null && "holds" in pet;
  const createdAt = new Date();
  while (missing > 0) {
    const batch = Math.min(missing, 10_000);
    const counter = await db
      .collection<{ _id: string; value: number }>("counters")
      .findOneAndUpdate({ _id: "orders" }, { $inc: { value: batch } }, { returnDocument: "after" });
    const first = counter!.value - batch + 1;
    const ids = Array.from({ length: batch }, (_, i) => first + i);
    await orders.insertMany(
      ids.map((id) => ({
        _id: id,
        petId,
        quantity: 1,
        state: "open",
        placedBy,
        revision: 1,
        createdAt,
        outbox: [],
      })) as never[],
      { ordered: false },
    );
    if (holdsOnPet) {
      const holds = Object.fromEntries(ids.map((id) => [`holds.o${id}`, 1]));
      await db
        .collection("pets")
        .updateOne({ _id: petId as never }, { $set: holds, $inc: { holdCount: batch, stock: -batch, revision: 1 } });
    } else {
      await db
        .collection("pets")
        .updateOne(
          { _id: petId as never },
          { $inc: { holdCount: batch, heldUnits: batch, stock: -batch, revision: 1 } },
        );
    }
    missing -= batch;
  }
};

/** Waits (at most `withinMs`) until no pet or order holds pending events: a stage starts with the relay caught up. */
const relayCaughtUp = async (db: Db, withinMs: number): Promise<boolean> => {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const pending =
      (await db.collection("pets").countDocuments({ hasEvents: true })) +
      (await db.collection("orders").countDocuments({ hasEvents: true }));
    if (pending === 0) return true;
    if (Date.now() > deadline) return false;
    await sleep(500);
  }
};

const petDocument = async (db: Db, petId: number) => {
  const doc = await db.collection("pets").findOne({ _id: petId as never });
  return {
    bytes: doc ? BSON.calculateObjectSize(doc) : Number.NaN,
    events: Array.isArray(doc?.outbox) ? (doc.outbox as unknown[]).length : 0,
  };
};

interface Settings {
  smoke: boolean;
  adminKey: string;
}

const hotPet = async (engine: EngineContainer, client: MongoClient, { adminKey }: Settings): Promise<void> => {
  const stages = (process.env.BENCH_HOT_OPEN_ORDERS ?? "0,10000,100000")
    .split(",")
    .map(Number)
    .sort((a, b) => a - b);
  const seconds = Number(process.env.BENCH_HOT_SECONDS ?? 15);
  const clients = Number(process.env.BENCH_HOT_CLIENTS ?? 12);
  const dbName = `bench_hot_${randomBytes(4).toString("hex")}`;
  const db = client.db(dbName);
  const service = await startMongoService(engine, dbName, adminKey);
  const rows = [
    [
      "open orders",
      "orders/s",
      "p50/p99 ms",
      "service CPU/order ms",
      "engine CPU/order ms",
      "pet document",
      "events in it",
      "engine memory now/peak",
      "failed",
    ],
  ];
  try {
    const keys = await newKeys(service.url, adminKey);
    const petId = await newPet(service.url, keys);
    for (const stage of stages) {
      const filling = Date.now();
      await fillOpenOrders(db, petId, keys.customerId, stage);
      const caughtUp = await relayCaughtUp(db, 60_000);
      out(
        `  hot pet: ${stage.toLocaleString("en")} open orders written in ${((Date.now() - filling) / 1000).toFixed(1)} s${caughtUp ? "" : " (relay still behind after 60 s)"}`,
      );
      const [serviceBefore, engineBefore] = [await service.cpuMicros(), await engine.cpuMicros()];
      const load = await placeOrders(service.url, keys.customer, petId, clients, seconds);
      const [serviceAfter, engineAfter] = [await service.cpuMicros(), await engine.cpuMicros()];
      const doc = await petDocument(db, petId);
      const memory = await engine.memory();
      const perOrder = (micros: number) => micros / 1000 / Math.max(1, load.orders);
      rows.push([
        stage.toLocaleString("en"),
        fixed(load.orders / load.seconds, 1),
        `${fixed(load.p50)}/${fixed(load.p99)}`,
        fixed(perOrder(serviceAfter - serviceBefore), 2),
        fixed(perOrder(engineAfter - engineBefore), 2),
        `${fixed(doc.bytes / 1024)} KB`,
        String(doc.events),
        `${fixed(memory.current / MiB)}/${fixed(memory.peak / MiB)} MiB`,
        failures(load.statuses),
      ]);
    }
  } finally {
    await service.stop();
    await db.dropDatabase().catch(() => undefined);
  }
  out(
    `\nMongoDB, one hot pet: ${clients} clients placing orders of 1 unit for ${seconds} s per stage (engine capped at 4 GiB):`,
  );
  out(table(rows));
};

const twoInstances = async (engine: EngineContainer, client: MongoClient, { adminKey }: Settings): Promise<void> => {
  const seconds = Number(process.env.BENCH_HOT_SECONDS ?? 15);
  const clients = Number(process.env.BENCH_HOT_CLIENTS ?? 12);
  const dbName = `bench_two_${randomBytes(4).toString("hex")}`;
  const db = client.db(dbName);
  const first = await startMongoService(engine, dbName, adminKey);
  const rows = [["instances", "orders/s total", "per pet", "p99 ms (worst)", "engine CPU/order ms", "failed"]];
  const measure = async (label: string, targets: { url: string; key: string; petId: number }[]) => {
    const engineBefore = await engine.cpuMicros();
    const share = Math.max(1, Math.floor(clients / targets.length));
    const loads = await Promise.all(targets.map((t) => placeOrders(t.url, t.key, t.petId, share, seconds)));
    const engineAfter = await engine.cpuMicros();
    const total = loads.reduce((n, l) => n + l.orders / l.seconds, 0);
    const orders = loads.reduce((n, l) => n + l.orders, 0);
    rows.push([
      label,
      fixed(total, 1),
      loads.map((l) => fixed(l.orders / l.seconds, 1)).join(" + "),
      fixed(Math.max(...loads.map((l) => l.p99))),
      fixed((engineAfter - engineBefore) / 1000 / Math.max(1, orders), 2),
      loads.map((l) => failures(l.statuses)).join(" + "),
    ]);
  };
  let second: ChildServer | undefined;
  try {
    const keys = await newKeys(first.url, adminKey);
    const pets = [await newPet(first.url, keys), await newPet(first.url, keys)];
    await measure(
      "one, on both pets",
      pets.map((petId) => ({ url: first.url, key: keys.customer, petId })),
    );
    await relayCaughtUp(db, 60_000);
    const fresh = [await newPet(first.url, keys), await newPet(first.url, keys)];
    second = await startMongoService(engine, dbName, adminKey);
    await measure("two, one pet each", [
      { url: first.url, key: keys.customer, petId: fresh[0]! },
      { url: second.url, key: keys.customer, petId: fresh[1]! },
    ]);
  } finally {
    await Promise.all([first.stop(), second?.stop()]);
    await db.dropDatabase().catch(() => undefined);
  }
  out(`\nMongoDB, two pets at 0 open orders: ${clients} clients in all for ${seconds} s, split evenly over the pets:`);
  out(table(rows));
};

/** Latencies of a GET sent every `everyMs` by a worker thread, in phases the caller names. */
const startProber = (url: string, key: string, everyMs: number) => {
  const worker = new Worker(here("./get-prober.ts"), { workerData: { url, key, everyMs } });
  return {
    phase: (name: string) => worker.postMessage({ phase: name }),
    stop: () =>
      new Promise<Record<string, number[]>>((resolve) => {
        worker.once("message", (phases: Record<string, number[]>) => {
          void worker.terminate();
          resolve(phases);
        });
        worker.postMessage({ stop: true });
      }),
  };
};

const memoryOrders = async ({ smoke, adminKey }: Settings): Promise<void> => {
  const count = Number(process.env.BENCH_MEMORY_ORDERS ?? (smoke ? 5_000 : 300_000));
  const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? (smoke ? 1 : 120));
  const service = await startChildServer(
    here("./service-server.ts"),
    await freeLoopbackPort(),
    { PETSTORE_ADMIN_KEY: adminKey, PETSTORE_LOG_LEVEL: "info" },
    { prefix: [], nodeArgs: SERVICE_NODE_ARGS },
  );
  const rss: { label: string; mib: number }[] = [];
  const sampleRss = (label: string) => rss.push({ label, mib: service.rssNow() ?? Number.NaN });
  let phases: Record<string, number[]> = {};
  let statuses: Record<string, number> = {};
  try {
    const keys = await newKeys(service.url, adminKey);
    const petId = await newPet(service.url, keys);
    sampleRss("before");
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, service.rssNow() ?? 0)), 250);
    const prober = startProber(`${service.url}/pets/${petId}`, keys.customer, 20);
    prober.phase("during the load");
    const result = await autocannon({
      url: `${service.url}/store/orders`,
      method: "POST",
      connections: 12,
      amount: count,
      headers: { "x-api-key": keys.customer, "content-type": "application/json" },
      body: JSON.stringify({ petId, quantity: 1 }),
      requests: [
        {
          setupRequest: (request) => ({ ...request, headers: { ...request.headers, "idempotency-key": randomUUID() } }),
        },
      ],
    });
    statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
    clearInterval(sampler);
    rss.push({ label: "peak during the load", mib: peak });
    sampleRss("at the end of the load");
    prober.phase(`idle, ${idleSeconds} s after`);
    await sleep(idleSeconds * 1000);
    sampleRss(`after ${idleSeconds} s idle`);
    phases = await prober.stop();
  } finally {
    await service.stop();
  }
  out(
    `\nmemory store: ${count.toLocaleString("en")} orders over HTTP with an Idempotency-Key each (${failures(statuses)} failed), then idle:`,
  );
  out(table([["RSS", "MiB"], ...rss.map((r) => [r.label, fixed(r.mib)])]));
  const quantile = (sorted: number[], q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  const rows = [["GET /pets/{id} every 20 ms", "requests", "p50 ms", "p99 ms", "max ms", "over 20 ms"]];
  for (const [phase, latencies] of Object.entries(phases)) {
    const sorted = [...latencies].sort((a, b) => a - b);
    rows.push([
      phase,
      String(sorted.length),
      fixed(quantile(sorted, 0.5), 1),
      fixed(quantile(sorted, 0.99), 1),
      fixed(sorted.at(-1) ?? Number.NaN, 1),
      String(sorted.filter((l) => l > 20).length),
    ]);
  }
  out(table(rows));
};

/** Runs the named scenarios, the MongoDB ones on one engine container of their own. */
export const runScaling = async (which: readonly ScalingScenario[], settings: Settings): Promise<void> => {
  const onMongo = which.filter((s) => s !== "memory-orders");
  if (onMongo.length > 0) {
    const engine = await startEngineContainer("4g");
    const client = new MongoClient(engine.url);
    try {
      await client.connect();
      if (onMongo.includes("hot-pet")) await hotPet(engine, client, settings);
      if (onMongo.includes("two-instances")) await twoInstances(engine, client, settings);
    } finally {
      await client.close();
      await engine.remove();
    }
  }
  if (which.includes("memory-orders")) await memoryOrders(settings);
};
