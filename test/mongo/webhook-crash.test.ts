import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { HmacWebhookSigner } from "../../adapters/crypto/hmac-webhook-signer.ts";
import { prepareMongoDatabase, mongoStoresFor } from "../../adapters/mongo/mongo-stores.ts";
import type { Stores } from "../../core/stores.ts";
import { describeMongo, freshMongoDatabase, mongoUrl, type FreshMongoDatabase } from "../support/mongo.ts";
import { startServiceProcess, type ServiceProcess } from "../support/service-process.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { verifyStandardWebhook } from "../support/webhook-verifier.ts";

/** Service processes on MongoDB, killed with SIGKILL mid-delivery and started again on the same database. */
describeMongo("webhook delivery across kill -9 (service processes on MongoDB)", () => {
  let mongo: FreshMongoDatabase;
  let stores: Stores;
  let receiver: WebhookReceiver | undefined;
  const started: ServiceProcess[] = [];
  const signer = new HmacWebhookSigner();

  const start = async () => {
    const service = await startServiceProcess({
      PETSTORE_STORE: "mongo",
      MONGODB_URL: mongoUrl(),
      MONGODB_DB: mongo.db.databaseName,
      PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
      PETSTORE_WEBHOOK_TIMEOUT_MS: "1000", // lease: 3 × 1 s + 5 s
      PETSTORE_WEBHOOK_RETRY_BASE_MS: "50",
      PETSTORE_WEBHOOK_POLL_MS: "50",
    });
    started.push(service);
    return service;
  };

  beforeAll(async () => {
    mongo = await freshMongoDatabase("webhook_crash");
    await prepareMongoDatabase(mongo.db);
    stores = mongoStoresFor(mongo.db, async () => {});
  });
  afterEach(async () => {
    for (const service of started.splice(0)) service.child.kill("SIGKILL");
    await receiver?.close();
  });
  afterAll(async () => {
    await mongo?.close();
  });

  // Kills and restarts a service process: about 9 s in CI, so above the default 20 s only on a slow machine.
  it(
    "a message whose sender was killed mid-delivery is sent again after a restart, under the same webhook-id",
    { timeout: 60_000 },
    async () => {
      receiver = await startWebhookReceiver(["hang", 204]);
      const secret = signer.newSecret();
      const createdAt = new Date();
      await stores.webhooks.add({
        id: 1,
        url: receiver.url,
        events: ["order.placed"],
        description: undefined,
        secrets: [{ value: secret, expiresAt: undefined }],
        createdAt,
      });
      const payload = JSON.stringify({
        type: "order.placed",
        timestamp: createdAt.toISOString(),
        data: { id: 1, petId: 1, quantity: 1, complete: false },
      });
      await stores.webhookMessages.enqueue([
        {
          id: "msg_crash_1",
          subscriptionId: 1,
          eventId: "evt_crash",
          type: "order.placed",
          payload,
          state: "pending",
          attempts: 0,
          nextAttemptAt: createdAt,
          createdAt,
        },
      ]);

      const first = await start();
      await receiver.waitFor(1); // in flight: the receiver holds the request
      first.child.kill("SIGKILL");
      await first.exit;
      expect((await stores.webhookMessages.ofId("msg_crash_1"))?.state).toBe("pending");

      await start();
      const [lost, delivered] = await receiver.waitFor(2, 30_000);
      expect(delivered!.headers["webhook-id"]).toBe("msg_crash_1");
      expect(lost!.headers["webhook-id"]).toBe("msg_crash_1");
      expect(delivered!.body).toBe(payload);
      expect(verifyStandardWebhook(secret, delivered!.headers, delivered!.body)).toBe(true);
      await expect
        .poll(async () => (await stores.webhookMessages.ofId("msg_crash_1"))?.state, { timeout: 5_000 })
        .toBe("delivered");
      expect((await stores.deliveryAttempts.recent(1, 10)).map((a) => [a.attempt, a.status])).toEqual([[1, 204]]);
    },
  );
});
