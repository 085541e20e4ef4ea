import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../bootstrap/config.ts";
import { createLogger } from "../../bootstrap/logger.ts";
import { composePetstore, type Petstore } from "../../bootstrap/petstore.ts";
import type { WebhookEventType } from "../../core/webhooks/webhook-event.ts";
import { MemoryEventFeed } from "../support/memory-event-feed.ts";
import { ADMIN_KEY } from "../support/test-petstore.ts";
import { startWebhookReceiver, type ReceiverReply, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { verifyStandardWebhook } from "../support/webhook-verifier.ts";

let petstore: Petstore | undefined;
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await petstore?.close();
  await receiver?.close();
  petstore = receiver = undefined;
});

const configWith = (pollMs: number) =>
  loadConfig({
    PETSTORE_ADMIN_KEY: ADMIN_KEY,
    PETSTORE_SEED_DEMO: "false",
    PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
    PETSTORE_WEBHOOK_RETRY_BASE_MS: "20",
    PETSTORE_WEBHOOK_TIMEOUT_MS: "300",
    PETSTORE_WEBHOOK_POLL_MS: String(pollMs),
  });

/** The whole service on memory stores, its worker running, with a stand-in outbox the test records events in. */
const serviceWithReceiver = async (
  replies: ReceiverReply[],
  events: WebhookEventType[],
  feed = new MemoryEventFeed(),
  pollMs = 20,
) => {
  receiver = await startWebhookReceiver(replies);
  petstore = await composePetstore(configWith(pollMs), createLogger("silent"), { events: feed });
  const { subscription, secret } = await petstore.useCases.createWebhookSubscription.execute({
    url: receiver.url,
    events,
  });
  petstore.webhookWorker.start();
  return { feed, subscription, secret, receiver };
};

describe("the webhook worker of a running service", () => {
  it("delivers each event type to a loopback receiver, signed, with the body { type, timestamp, data }", async () => {
    const types = [
      "order.placed",
      "order.completed",
      "order.cancelled",
      "pet.status_changed",
      "inventory.changed",
    ] as const;
    const { feed, secret, receiver } = await serviceWithReceiver([204], [...types]);
    types.forEach((type, i) => feed.record(type, { n: i }, new Date()));
    const received = await receiver.waitFor(5);
    for (const webhook of received) {
      expect(verifyStandardWebhook(secret, webhook.headers, webhook.body)).toBe(true);
    }
    expect(
      received
        .map((w) => JSON.parse(w.body) as { type: string })
        .map((b) => b.type)
        .sort(),
    ).toEqual([...types].sort());
    expect(feed.size).toBe(0);
  });

  it("retries after a 500 and a time-out under the same webhook-id, and the deliveries log shows each attempt", async () => {
    const { feed, subscription, secret, receiver } = await serviceWithReceiver([500, "hang", 200], ["order.placed"]);
    feed.record("order.placed", { id: 1 }, new Date());
    const received = await receiver.waitFor(3);
    expect(new Set(received.map((w) => w.headers["webhook-id"])).size).toBe(1);
    for (const webhook of received) expect(verifyStandardWebhook(secret, webhook.headers, webhook.body)).toBe(true);
    await expect
      .poll(async () => (await petstore!.useCases.listWebhookDeliveries.execute(subscription.id)).length)
      .toBe(3);
    const log = await petstore!.useCases.listWebhookDeliveries.execute(subscription.id);
    expect(log.map((a) => [a.attempt, a.status, a.error])).toEqual([
      [3, 200, undefined],
      [2, undefined, "timeout after 300 ms"],
      [1, 500, undefined],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(3); // delivered: not sent again
  });
});

describe("when the webhook worker runs", () => {
  const idleRun = () => new Promise((resolve) => setTimeout(resolve, 200));

  it("relays what the memory store records at once, not at the next poll (a minute here)", async () => {
    receiver = await startWebhookReceiver([204]);
    petstore = await composePetstore(configWith(60_000), createLogger("silent"));
    const { useCases } = petstore;
    await useCases.createWebhookSubscription.execute({ url: receiver.url, events: ["inventory.changed"] });
    const category = await useCases.createCategory.execute({ name: "Dogs" });
    const pet = await useCases.createPet.execute({ name: "Rex", categoryId: category.id });
    petstore.webhookWorker.start();
    await idleRun(); // its first run found nothing: it waits out the poll
    await useCases.setInventory.execute(pet.id, 3);
    const [webhook] = await receiver.waitFor(1, 5_000);
    expect(JSON.parse(webhook!.body)).toMatchObject({
      type: "inventory.changed",
      data: { petId: pet.id, quantity: 3 },
    });
  });

  it("runs again at once when events are recorded during a run that found none (its read came before them)", async () => {
    const feed = new MemoryEventFeed();
    let reads = 0;
    feed.onRead = () => {
      if (++reads === 1) feed.record("order.placed", { id: 1 }, new Date()); // after the first run's read, before its end
    };
    const { receiver } = await serviceWithReceiver([204], ["order.placed"], feed, 60_000);
    const [webhook] = await receiver.waitFor(1, 5_000);
    expect(JSON.parse(webhook!.body)).toMatchObject({ type: "order.placed", data: { id: 1 } });
    expect(reads).toBeGreaterThan(1);
  });

  it("waits for the poll with an outbox that cannot tell (MongoDB's)", async () => {
    const feed = new MemoryEventFeed({ silent: true });
    const { receiver } = await serviceWithReceiver([204], ["order.placed"], feed, 1_000);
    await idleRun();
    const recorded = Date.now();
    feed.record("order.placed", { id: 1 }, new Date());
    await receiver.waitFor(1, 5_000);
    expect(Date.now() - recorded).toBeGreaterThan(500);
  });

  it("after a failed run waits out the poll, whatever is recorded meanwhile (a failing store is not hammered)", async () => {
    const feed = new MemoryEventFeed();
    let failedAt = 0;
    feed.onRead = () => {
      if (failedAt === 0) {
        failedAt = Date.now();
        throw new Error("store down");
      }
    };
    const { receiver } = await serviceWithReceiver([204], ["order.placed"], feed, 1_000);
    await expect.poll(() => failedAt).toBeGreaterThan(0);
    feed.record("order.placed", { id: 1 }, new Date());
    await receiver.waitFor(1, 5_000);
    expect(Date.now() - failedAt).toBeGreaterThan(500);
  });
});
