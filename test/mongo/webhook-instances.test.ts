import { afterAll, beforeAll, expect, it } from "vitest";
import { connectMongoStores } from "../../adapters/mongo/mongo-stores.ts";
import { loadConfig } from "../../bootstrap/config.ts";
import { createLogger } from "../../bootstrap/logger.ts";
import { composePetstore, type Petstore } from "../../bootstrap/petstore.ts";
import { MemoryEventFeed } from "../support/memory-event-feed.ts";
import { describeMongo, freshMongoDatabase, mongoUrl, type FreshMongoDatabase } from "../support/mongo.ts";
import { ADMIN_KEY } from "../support/test-petstore.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { verifyStandardWebhook } from "../support/webhook-verifier.ts";

/**
 * Three service instances, each with its own client and worker, on one database; one outbox (a stand-in shared in
 * this process) that all three relay from at once.
 */
describeMongo("webhook delivery by several instances on one MongoDB database", () => {
  let mongo: FreshMongoDatabase;
  let receiver: WebhookReceiver;
  const instances: Petstore[] = [];
  const feed = new MemoryEventFeed();

  beforeAll(async () => {
    mongo = await freshMongoDatabase("webhook_instances");
    receiver = await startWebhookReceiver([500, 204]);
    const config = loadConfig({
      PETSTORE_ADMIN_KEY: ADMIN_KEY,
      PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
      PETSTORE_WEBHOOK_RETRY_BASE_MS: "50",
      PETSTORE_WEBHOOK_POLL_MS: "20",
    });
    for (let i = 0; i < 3; i++) {
      const stores = await connectMongoStores({ url: mongoUrl(), dbName: mongo.db.databaseName });
      instances.push(await composePetstore(config, createLogger("silent"), { stores, events: feed }));
    }
  });
  afterAll(async () => {
    for (const instance of instances) await instance.close();
    await receiver?.close();
    await mongo?.close();
  });

  it("sends every message once when it succeeds, and each retry once, whichever instance holds it", async () => {
    const { secret, subscription } = await instances[0]!.useCases.createWebhookSubscription.execute({
      url: receiver.url,
      events: ["order.placed"],
    });
    const at = new Date();
    for (let i = 0; i < 30; i++) feed.record("order.placed", { id: i + 1 }, at);
    for (const instance of instances) instance.webhookWorker.start();
    // The first answer is a 500: one message is retried; 31 requests in all.
    const received = await receiver.waitFor(31, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(31);
    const perId = new Map<string, number>();
    for (const webhook of received) {
      const id = String(webhook.headers["webhook-id"]);
      perId.set(id, (perId.get(id) ?? 0) + 1);
      expect(verifyStandardWebhook(secret, webhook.headers, webhook.body)).toBe(true);
    }
    expect(perId.size).toBe(30);
    expect([...perId.values()].sort()).toEqual([...Array(29).fill(1), 2]);
    const log = await instances[1]!.useCases.listWebhookDeliveries.execute(subscription.id);
    expect(log).toHaveLength(31);
    expect(log.filter((a) => a.status === 500)).toHaveLength(1);
  });
});
