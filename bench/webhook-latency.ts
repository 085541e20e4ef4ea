/**
 * node bench/webhook-latency.ts [--mongo]
 *
 * Delivery latency of webhooks: from the answer to `POST /store/orders` to the `order.placed` webhook's arrival at
 * a loopback receiver (node:http on 127.0.0.1), through the whole service (app.fetch, the worker as `main` runs it,
 * the real HTTP sender). Orders are placed one at a time at irregular intervals, so the worker's polling phase is
 * sampled evenly. Printed per poll interval: median, p95 and max over the orders. With --mongo: MONGODB_URL, or the
 * test engine started as the tests start it.
 */
import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { prepareMongoDatabase, mongoStoresFor } from "../adapters/mongo/mongo-stores.ts";
import { createMemoryStores } from "../adapters/memory/memory-stores.ts";
import type { Stores } from "../core/stores.ts";
import { loadConfig } from "../bootstrap/config.ts";
import { createLogger } from "../bootstrap/logger.ts";
import { composePetstore } from "../bootstrap/petstore.ts";
import startTestEngine from "../test/support/mongo-global-setup.ts";
import { MemoryEventFeed } from "../test/support/memory-event-feed.ts";
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
  const feed = new MemoryEventFeed();
  const petstore = await composePetstore(config, createLogger("silent"), { stores, events: feed });
  const client = new TestClient(petstore.app);
  const t = { petstore, client };
  try {
    const limits = { perMinute: 1_000_000, perDay: 1_000_000_000 };
    const newKey = async (role: "staff" | "customer") =>
      (await client.post("/admin/api-keys", { key: ADMIN_KEY, body: { label: role, role, plan: "enterprise", limits } })).body.key as string;
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
      feed.record("order.placed", { id: order.body.id as number }, new Date());
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
        report(`MongoDB, ${pollMs} ms`, await measure(mongoStoresFor(db, async () => {}), pollMs));
      } finally {
        await db.dropDatabase();
      }
    }
  } finally {
    await client.close();
    await stopEngine?.();
  }
} else {
  for (const pollMs of [500, 50]) report(`memory, ${pollMs} ms`, await measure(createMemoryStores(), pollMs));
}
