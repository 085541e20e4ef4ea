/**
 * Store round trips per HTTP operation on MongoDB, counted with the driver's command monitoring (as
 * test/mongo/mongo-round-trips.test.ts counts them per use case). The server: MONGODB_URL, or the test engine started
 * by the tests' own global setup (test/support/mongo-global-setup.ts, same settings). Each operation is measured on
 * its second run, so one-off work (creating a day's rate-limit document) is not counted.
 */
import { randomBytes } from "node:crypto";
import { MongoClient, type CommandStartedEvent } from "mongodb";
import { prepareMongoDatabase, mongoClientOptions, mongoStoresFor } from "../adapters/mongo/mongo-stores.ts";
import startTestEngine from "../test/support/mongo-global-setup.ts";
import { startTestPetstore } from "../test/support/test-petstore.ts";

export const mongoRoundTrips = async (): Promise<Array<{ operation: string; commands: string[] }>> => {
  const provided: Record<string, string> = {};
  const stopEngine = process.env.MONGODB_URL
    ? undefined
    : await startTestEngine({ provide: (key: string, value: string) => void (provided[key] = value) } as never);
  const url = process.env.MONGODB_URL ?? provided.mongoUrl;
  if (!url) {
    await stopEngine?.();
    throw new Error(`no MongoDB for --mongo: ${provided.mongoUnavailable ?? "set MONGODB_URL"}`);
  }
  const dbName = `bench_${randomBytes(4).toString("hex")}`;
  const client = new MongoClient(url, { ...mongoClientOptions({ url, dbName }), monitorCommands: true });
  const commands: string[] = [];
  client.on("commandStarted", (event: CommandStartedEvent) => {
    if (event.databaseName === dbName) commands.push(`${event.commandName} ${event.command[event.commandName]}`);
  });
  try {
    await client.connect();
    const db = client.db(dbName);
    await prepareMongoDatabase(db);
    const t = await startTestPetstore({ stores: mongoStoresFor(db, async () => {}) });
    try {
      const limits = { perMinute: 1_000_000, perDay: 1_000_000_000 };
      const customer = await t.newKey("customer", "enterprise", limits);
      const staff = await t.newKey("staff", "enterprise", limits);
      const category = await t.client.post("/categories", { key: staff, body: { name: "Dogs" } });
      const pet = await t.client.post("/pets", { key: staff, body: { name: "Rex", categoryId: category.body.id } });
      await t.client.put(`/store/inventory/${pet.body.id}`, { key: staff, body: { quantity: 1_000 } });
      const soldOut = await t.client.post("/pets", {
        key: staff,
        body: { name: "Bella", categoryId: category.body.id },
      });
      let idempotencyKey = 0;
      const operations: Array<[string, () => Promise<{ status: number }>, number?]> = [
        ["keyed GET /pets?ids=", () => t.client.get(`/pets?ids=${pet.body.id}`, { key: customer })],
        ["GET /pets/{id}", () => t.client.get(`/pets/${pet.body.id}`, { key: customer })],
        ["GET /store/inventory", () => t.client.get("/store/inventory", { key: customer })],
        [
          "POST /store/orders",
          () => t.client.post("/store/orders", { key: customer, body: { petId: pet.body.id, quantity: 1 } }),
        ],
        [
          "POST /store/orders + Idempotency-Key",
          () =>
            t.client.post("/store/orders", {
              key: customer,
              body: { petId: pet.body.id, quantity: 1 },
              headers: { "idempotency-key": `bench-${++idempotencyKey}` },
            }),
        ],
        [
          "POST /store/orders refused (no stock: 409)",
          () => t.client.post("/store/orders", { key: customer, body: { petId: soldOut.body.id, quantity: 1 } }),
          409,
        ],
        [
          "POST /pets",
          () => t.client.post("/pets", { key: staff, body: { name: "Rex", categoryId: category.body.id } }),
        ],
        [
          "POST /pets + Idempotency-Key",
          () =>
            t.client.post("/pets", {
              key: staff,
              body: { name: "Rex", categoryId: category.body.id },
              headers: { "idempotency-key": `bench-${++idempotencyKey}` },
            }),
        ],
      ];
      const rows: Array<{ operation: string; commands: string[] }> = [];
      for (const [operation, run, expected] of operations) {
        await run();
        commands.length = 0;
        const { status } = await run();
        if (expected ? status !== expected : status >= 300) throw new Error(`${operation} answered ${status}`);
        rows.push({ operation, commands: [...commands] });
      }
      return rows;
    } finally {
      await t.close();
    }
  } finally {
    await client
      .db(dbName)
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
    await stopEngine?.();
  }
};
