/**
 * node bench/webhook-latency.ts [--mongo]
 *
 * Delivery latency of webhooks: from the answer to `POST /store/orders` to the `order.placed` webhook's arrival at
 * a loopback receiver (node:http on 127.0.0.1), through the whole service (app.fetch, the worker as `main` runs it,
 * the real HTTP sender). Orders are placed one at a time at irregular intervals, so the worker's polling phase is
 * sampled evenly. Printed per poll interval: median, p95 and max over the orders. With --mongo: MONGODB_URL, or the
 * test engine started as the tests start it.
 *
 * With --mongo it then measures under load: the service as a child process on an engine container of its own (as
 * bench/scaling.ts runs them), one subscription to `order.placed` on a loopback receiver, and BENCH_HOT_CLIENTS (12)
 * clients placing orders on one pet as fast as the engine takes them for BENCH_LOAD_SECONDS (20), at the default
 * poll interval. Per order: from its 201 (autocannon's reply) to its webhook's arrival; then p50, p95 and max, the
 * orders' rate, and how long the last webhook took after the load stopped. `--load-only` runs only that.
 */
import { randomBytes } from "node:crypto";
import { MongoClient, type CommandStartedEvent } from "mongodb";
import { prepareMongoDatabase, mongoStoresFor } from "../adapters/mongo/mongo-stores.ts";
import { createMemoryStores } from "../adapters/memory/memory-stores.ts";
import type { Stores } from "../core/stores.ts";
import { loadConfig } from "../bootstrap/config.ts";
import { createLogger } from "../bootstrap/logger.ts";
import { composePetstore } from "../bootstrap/petstore.ts";
import autocannon from "autocannon";
import { fileURLToPath } from "node:url";
import startTestEngine from "../test/support/mongo-global-setup.ts";
import { freeLoopbackPort } from "../test/support/free-port.ts";
import { SERVICE_NODE_ARGS, startChildServer } from "./child-server.ts";
import { startEngineContainer } from "./engine-container.ts";
import { ADMIN_KEY, TestClient } from "../test/support/test-petstore.ts";
import { startWebhookReceiver } from "../test/support/webhook-receiver.ts";

const ORDERS = Number(process.env.BENCH_ORDERS ?? 40);
const out = (text: string) => process.stdout.write(`${text}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

const measure = async (stores: Stores, pollMs: number): Promise<number[]> => {
  const receiver = await startWebhookReceiver([204]);
  const config = loadConfig({
    PETSTORE_ADMIN_KEY: ADMIN_KEY,
    PETSTORE_SEED_DEMO: "false",
    PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
    PETSTORE_WEBHOOK_POLL_MS: String(pollMs),
  });
  const petstore = await composePetstore(config, createLogger("silent"), { stores });
  const client = new TestClient(petstore.app);
  const t = { petstore, client };
  try {
    const limits = { perMinute: 1_000_000, perDay: 1_000_000_000 };
    const newKey = async (role: "staff" | "customer") =>
      (
        await client.post("/admin/api-keys", {
          key: ADMIN_KEY,
          body: { label: role, role, plan: "enterprise", limits },
        })
      ).body.key as string;
    const staff = await newKey("staff");
    const customer = await newKey("customer");
    await t.petstore.useCases.createWebhookSubscription.execute({ url: receiver.url, events: ["order.placed"] });
    const category = await t.client.post("/categories", { key: staff, body: { name: `Dogs ${pollMs}` } });
    const pet = await t.client.post("/pets", { key: staff, body: { name: "Rex", categoryId: category.body.id } });
    await t.client.put(`/store/inventory/${pet.body.id}`, { key: staff, body: { quantity: 100_000 } });
    t.petstore.webhookWorker.start();
    await sleep(pollMs * 2);
    const answeredAt = new Map<number, number>();
    for (let i = 0; i < ORDERS; i++) {
      const order = await t.client.post("/store/orders", { key: customer, body: { petId: pet.body.id, quantity: 1 } });
      answeredAt.set(order.body.id as number, Date.now());
      await sleep(Math.round(pollMs * (0.3 + 1.7 * Math.random())));
    }
    const received = await receiver.waitFor(ORDERS, 60_000);
    return received
      .map((w) => {
        const body = JSON.parse(w.body) as { data: { id: number } };
        return w.receivedAt - answeredAt.get(body.data.id)!;
      })
      .sort((a, b) => a - b);
  } finally {
    await petstore.close();
    await receiver.close();
  }
};

const report = (label: string, latencies: number[]) =>
  out(
    `| ${label} | ${latencies.length} | ${quantile(latencies, 0.5)} ms | ${quantile(latencies, 0.95)} ms | ${latencies.at(-1)} ms |`,
  );

/**
 * Round trips on MongoDB, counted with the driver's command monitoring: those of one order (the events it records
 * travel in its own writes), then those of relaying its events and delivering its webhook, one worker run each.
 */
const webhookRoundTrips = async (url: string): Promise<void> => {
  const dbName = `bench_webhook_rt_${randomBytes(4).toString("hex")}`;
  const client = new MongoClient(url, { monitorCommands: true });
  const commands: string[] = [];
  client.on("commandStarted", (event: CommandStartedEvent) => {
    if (event.databaseName === dbName)
      commands.push(`${event.commandName} ${String(event.command[event.commandName])}`);
  });
  const receiver = await startWebhookReceiver([204]);
  await client.connect();
  const db = client.db(dbName);
  await prepareMongoDatabase(db);
  const config = loadConfig({
    PETSTORE_ADMIN_KEY: ADMIN_KEY,
    PETSTORE_SEED_DEMO: "false",
    PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
  });
  const petstore = await composePetstore(config, createLogger("silent"), {
    stores: mongoStoresFor(db, async () => {}),
  });
  const http = new TestClient(petstore.app);
  try {
    const limits = { perMinute: 1_000_000, perDay: 1_000_000_000 };
    const newKey = async (role: "staff" | "customer") =>
      (await http.post("/admin/api-keys", { key: ADMIN_KEY, body: { label: role, role, plan: "enterprise", limits } }))
        .body.key as string;
    const staff = await newKey("staff");
    const customer = await newKey("customer");
    await petstore.useCases.createWebhookSubscription.execute({ url: receiver.url, events: ["order.placed"] });
    const category = await http.post("/categories", { key: staff, body: { name: "Dogs" } });
    const pet = await http.post("/pets", { key: staff, body: { name: "Rex", categoryId: category.body.id } });
    await http.put(`/store/inventory/${pet.body.id}`, { key: staff, body: { quantity: 100 } });
    await http.post("/store/orders", { key: customer, body: { petId: pet.body.id, quantity: 1 } });
    const worker = petstore.webhookWorker;
    worker.start(); // drains what the set-up recorded
    await receiver.waitFor(1, 10_000);
    await worker.stop();
    commands.length = 0;
    await http.post("/store/orders", { key: customer, body: { petId: pet.body.id, quantity: 1 } });
    out(`\nPOST /store/orders: ${commands.length} round trips: ${commands.join(", ")}`);
    commands.length = 0;
    worker.start();
    await receiver.waitFor(2, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await worker.stop();
    out(`relaying its events and delivering its webhook: ${commands.length} round trips: ${commands.join(", ")}`);
  } finally {
    await petstore.close();
    await receiver.close();
    await db.dropDatabase();
    await client.close();
  }
};

/** Delivery delay while orders are placed as fast as the engine takes them (see the file's comment). */
const underLoad = async (): Promise<void> => {
  const seconds = Number(process.env.BENCH_LOAD_SECONDS ?? 20);
  const clients = Number(process.env.BENCH_HOT_CLIENTS ?? 12);
  const engine = await startEngineContainer("4g");
  const receiver = await startWebhookReceiver([204]);
  const adminKey = randomBytes(24).toString("base64url");
  const service = await startChildServer(
    fileURLToPath(new URL("./service-server.ts", import.meta.url)),
    await freeLoopbackPort(),
    {
      PETSTORE_ADMIN_KEY: adminKey,
      PETSTORE_LOG_LEVEL: "info",
      PETSTORE_STORE: "mongo",
      MONGODB_URL: engine.url,
      MONGODB_DB: "bench_webhook_load",
      PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
    },
    { prefix: [], nodeArgs: SERVICE_NODE_ARGS },
  );
  try {
    const call = async (method: string, path: string, key: string, body: unknown) => {
      const res = await fetch(`${service.url}${path}`, {
        method,
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, unknown>;
      if (res.status >= 300) throw new Error(`setup ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const limits = { perMinute: 1_000_000, perDay: 1_000_000_000 };
    const key = async (role: string) =>
      (await call("POST", "/admin/api-keys", adminKey, { label: role, role, plan: "enterprise", limits }))
        .key as string;
    const staff = await key("staff");
    const customer = await key("customer");
    await call("POST", "/admin/webhooks", adminKey, { url: receiver.url, events: ["order.placed"] });
    const category = await call("POST", "/categories", staff, { name: "Dogs" });
    const pet = await call("POST", "/pets", staff, { name: "Rex", categoryId: category.id });
    await call("PUT", `/store/inventory/${pet.id as number}`, staff, { quantity: 1_000_000 });
    const answeredAt = new Map<number, number>();
    const result = await autocannon({
      url: `${service.url}/store/orders`,
      method: "POST",
      connections: clients,
      duration: seconds,
      sampleInt: 100,
      headers: { "x-api-key": customer, "content-type": "application/json" },
      body: JSON.stringify({ petId: pet.id, quantity: 1 }),
      requests: [
        {
          onResponse: (status, body) => {
            if (status === 201) answeredAt.set((JSON.parse(body) as { id: number }).id, Date.now());
          },
        },
      ],
    });
    const stoppedAt = Date.now();
    const received = await receiver.waitFor(answeredAt.size, 180_000).catch(() => receiver.received);
    const delays = received
      .map((w) => (JSON.parse(w.body) as { data: { id: number } }).data.id)
      .flatMap((id, i) => (answeredAt.has(id) ? [received[i]!.receivedAt - answeredAt.get(id)!] : []))
      .sort((a, b) => a - b);
    const lastAfterStop = Math.max(0, (received.at(-1)?.receivedAt ?? stoppedAt) - stoppedAt);
    out(
      `\nMongoDB under load (engine container, service as a child process, poll ${500} ms): ${clients} clients for ${seconds} s, ` +
        `${answeredAt.size} orders (${(answeredAt.size / result.duration).toFixed(1)}/s, ${result.non2xx} not 201), ` +
        `${delays.length} webhooks received`,
    );
    out("| from the 201 to the webhook | median | p95 | max | last one after the load stopped |");
    out("|---|---|---|---|---|");
    out(
      `| order.placed, one subscription | ${quantile(delays, 0.5)} ms | ${quantile(delays, 0.95)} ms | ${delays.at(-1)} ms | ${lastAfterStop} ms |`,
    );
  } finally {
    await service.stop();
    await receiver.close();
    await engine.remove();
  }
};

if (process.argv.includes("--load-only")) {
  await underLoad();
  process.exit(0);
}
out("| store, poll | orders | median | p95 | max |");
out("|---|---|---|---|---|");
if (process.argv.includes("--mongo")) {
  const provided: Record<string, string> = {};
  const stopEngine = process.env.MONGODB_URL
    ? undefined
    : await startTestEngine({ provide: (key: string, value: string) => void (provided[key] = value) } as never);
  const url = process.env.MONGODB_URL ?? provided.mongoUrl;
  if (!url) throw new Error(`no MongoDB for --mongo: ${provided.mongoUnavailable ?? "set MONGODB_URL"}`);
  const client = new MongoClient(url);
  try {
    await client.connect();
    for (const pollMs of [500, 50]) {
      const db = client.db(`bench_webhooks_${randomBytes(4).toString("hex")}`);
      await prepareMongoDatabase(db);
      try {
        report(
          `MongoDB, ${pollMs} ms`,
          await measure(
            mongoStoresFor(db, async () => {}),
            pollMs,
          ),
        );
      } finally {
        await db.dropDatabase();
      }
    }
    await webhookRoundTrips(url);
  } finally {
    await client.close();
    await stopEngine?.();
  }
  await underLoad();
} else {
  for (const pollMs of [500, 50]) report(`memory, ${pollMs} ms`, await measure(createMemoryStores(), pollMs));
}
