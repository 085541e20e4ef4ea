/**
 * What relaying costs the store, counted with the driver's command monitoring: a relay run costs the same commands
 * whether its batch holds the events of one order or of twenty (a read of pending pets and orders, the event log's
 * two, the subscriptions per event type, the messages, one acknowledgement per collection), so an event costs a
 * fraction of a round trip in a busy batch.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { MongoClient, type CommandStartedEvent } from "mongodb";
import { mongoStoresFor, prepareMongoDatabase } from "../../adapters/mongo/mongo-stores.ts";
import { loadConfig } from "../../bootstrap/config.ts";
import { createLogger } from "../../bootstrap/logger.ts";
import { composePetstore, type Petstore } from "../../bootstrap/petstore.ts";
import { HmacWebhookSigner } from "../../adapters/crypto/hmac-webhook-signer.ts";
import type { Stores } from "../../core/stores.ts";
import { DeliverDueMessages } from "../../core/webhooks/deliver-due-messages.ts";
import { RelayEvents } from "../../core/webhooks/relay-events.ts";
import {
  describeMongo,
  emptyMongoDatabase,
  freshMongoDatabase,
  mongoUrl,
  TEST_MONGO_CLIENT_OPTIONS,
  type FreshMongoDatabase,
} from "../support/mongo.ts";
import { ADMIN_KEY, TestClient } from "../support/test-petstore.ts";
import { anOrder } from "../contracts/mothers.ts";

describeMongo("relaying on MongoDB: store round trips", () => {
  let mongo: FreshMongoDatabase;
  let monitored: MongoClient;
  let commands: string[] = [];
  let petstore: Petstore;
  let http: TestClient;
  let relay: RelayEvents;
  let stores: Stores;

  beforeAll(async () => {
    mongo = await freshMongoDatabase("relay_round_trips");
    monitored = new MongoClient(mongoUrl(), { ...TEST_MONGO_CLIENT_OPTIONS, monitorCommands: true });
    await monitored.connect();
    monitored.on("commandStarted", (event: CommandStartedEvent) => {
      if (event.databaseName === mongo.db.databaseName)
        commands.push(`${event.commandName} ${String(event.command[event.commandName])}`);
    });
  });
  afterAll(async () => {
    await petstore?.close();
    await monitored?.close();
    await mongo?.close();
  });

  let customer: string;
  let petId: number;
  beforeEach(async () => {
    await petstore?.close();
    await emptyMongoDatabase(mongo.db);
    await prepareMongoDatabase(mongo.db);
    stores = mongoStoresFor(monitored.db(mongo.db.databaseName), async () => {});
    const config = loadConfig({
      PETSTORE_ADMIN_KEY: ADMIN_KEY,
      PETSTORE_SEED_DEMO: "false",
      PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
    });
    petstore = await composePetstore(config, createLogger("silent"), { stores });
    http = new TestClient(petstore.app);
    relay = new RelayEvents({ ...stores, events: stores.outbox, clock: { now: () => new Date() } });
    const limits = { perMinute: 10_000, perDay: 100_000 };
    const key = async (role: string) =>
      (await http.post("/admin/api-keys", { key: ADMIN_KEY, body: { label: role, role, plan: "enterprise", limits } }))
        .body.key as string;
    const staff = await key("staff");
    customer = await key("customer");
    await petstore.useCases.createWebhookSubscription.execute({
      url: "http://127.0.0.1:9/hook",
      events: ["order.placed", "inventory.changed"],
    });
    const category = await http.post("/categories", { key: staff, body: { name: "Dogs" } });
    petId = (await http.post("/pets", { key: staff, body: { name: "Rex", categoryId: category.body.id } })).body
      .id as number;
    await http.put(`/store/inventory/${petId}`, { key: staff, body: { quantity: 100 } });
    while ((await relay.execute()) > 0); // what the set-up recorded
  });

  /** The commands of one relay run after `orders` orders, sorted (some are sent in parallel). */
  const relayRunAfter = async (orders: number): Promise<{ relayed: number; commands: string[] }> => {
    for (let i = 0; i < orders; i++)
      expect((await http.post("/store/orders", { key: customer, body: { petId, quantity: 1 } })).status).toBe(201);
    commands = [];
    const relayed = await relay.execute();
    return { relayed, commands: [...commands].sort() };
  };

  const expected = [
    "find orders", // pending: the oldest documents with events, per collection
    "find pets",
    "find webhook_subscriptions", // who listens, per event type in the batch
    "find webhook_subscriptions",
    "findAndModify counters", // the event log: positions, then the events
    "insert event_log",
    "insert webhook_messages",
    "update orders", // acknowledgements: one unordered bulkWrite per collection, one update each document
    "update pets",
  ];

  it("costs 9 round trips for one order's two events", async () => {
    expect(await relayRunAfter(1)).toEqual({ relayed: 2, commands: expected });
  });

  it("costs the same 9 for twenty orders' forty events, and leaves nothing pending", async () => {
    expect(await relayRunAfter(20)).toEqual({ relayed: 40, commands: expected });
    commands = [];
    expect(await relay.execute()).toBe(0);
    expect(commands.sort()).toEqual(["find orders", "find pets"]);
    const log = await petstore.stores.eventLog.readAfter(0, 1_000);
    expect(log.events.filter((e) => e.type === "order.placed")).toHaveLength(20);
  });

  it("acknowledges cancelled orders by leaving their gone tombstones, one update command for all, and no delete", async () => {
    const placed: number[] = [];
    for (let i = 0; i < 3; i++)
      placed.push(
        (await http.post("/store/orders", { key: customer, body: { petId, quantity: 1 } })).body.id as number,
      );
    while ((await relay.execute()) > 0);
    for (const id of placed) expect((await http.delete(`/store/orders/${id}`, { key: customer })).status).toBe(204);
    commands = [];
    expect(await relay.execute()).toBe(6);
    expect(commands.sort()).toEqual([
      "find orders",
      "find pets",
      "find webhook_subscriptions",
      "find webhook_subscriptions",
      "findAndModify counters",
      "insert event_log",
      "insert webhook_messages",
      "update orders", // the three cancelled orders, each turned into its gone tombstone with its last event
      "update pets",
    ]);
    expect(await stores.orders.ofId(placed[0]!)).toBeUndefined();
    // A late copy of the order's insert is refused by its tombstone.
    expect(await stores.orders.insert(anOrder({ id: placed[0]!, petId }))).toBe(false);
  });

  it("delivers a run's messages with 6 round trips whatever their number", async () => {
    await relayRunAfter(20);
    const sent: string[] = [];
    const deliver = new DeliverDueMessages(
      {
        ...stores,
        signer: new HmacWebhookSigner(),
        clock: { now: () => new Date() },
        sender: {
          send: async (w) => (sent.push(w.headers["webhook-id"]!), { kind: "answered", status: 204, body: "" }),
        },
      },
      { owner: "instance-1", leaseMs: 60_000, retryBaseMs: 1_000, batch: 100, random: () => 0.5 },
    );
    commands = [];

    // Both event types of twenty orders, and the set-up's restock: 41 messages to the one subscription.
    expect(await deliver.execute()).toBe(41);

    expect(new Set(sent).size).toBe(41);
    const count = (command: string) => commands.filter((c) => c === command).length;
    expect(commands.length).toBe(6);
    expect(count("find webhook_messages")).toBe(2); // the due candidates, then what this claim got
    expect(count("update webhook_messages")).toBe(2); // the claim, then the settlements in one bulk write
    expect(count("find webhook_subscriptions")).toBe(1);
    expect(count("insert webhook_attempts")).toBe(1);
  });
});
