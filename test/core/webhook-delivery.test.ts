import { describe, expect, it } from "vitest";
import { MAX_ATTEMPTS, retryDelayMs } from "../../core/webhooks/retry-schedule.ts";
import { RotateWebhookSecret } from "../../core/webhooks/rotate-webhook-secret.ts";
import { DeleteWebhookSubscription } from "../../core/webhooks/delete-webhook-subscription.ts";
import { verifyStandardWebhook } from "../support/webhook-verifier.ts";
import { aWebhookWorld, ok, ScriptedSender, serverError, timedOut, type WebhookWorld } from "./webhook-world.ts";

const nowSeconds = (w: WebhookWorld) => Math.floor(w.clock.now().getTime() / 1000);
const run = async (w: WebhookWorld) => {
  await w.relay.execute();
  return w.worker().execute();
};

describe("relaying events into messages", () => {
  it("makes one message per matching subscription with the body { type, timestamp, data }, then acknowledges the events", async () => {
    const w = aWebhookWorld();
    const orders = await w.subscribe(["order.placed"]);
    const both = await w.subscribe(["order.placed", "inventory.changed"]);
    await w.subscribe(["pet.status_changed"]);
    w.event("order.placed", { id: 7, petId: 1, quantity: 2, complete: false });
    w.event("inventory.changed", { petId: 1, quantity: 3, status: "available" });
    expect(await w.relay.execute()).toBe(2);
    expect(w.feed.size).toBe(0);
    await w.worker().execute();
    const byUrlAndType = w.sender.sent.map(
      (s) => JSON.parse(s.body) as { type: string; timestamp: string; data: unknown },
    );
    expect(byUrlAndType).toEqual([
      {
        type: "order.placed",
        timestamp: "2026-11-21T12:00:00.000Z",
        data: { id: 7, petId: 1, quantity: 2, complete: false },
      },
      {
        type: "order.placed",
        timestamp: "2026-11-21T12:00:00.000Z",
        data: { id: 7, petId: 1, quantity: 2, complete: false },
      },
      {
        type: "inventory.changed",
        timestamp: "2026-11-21T12:00:00.000Z",
        data: { petId: 1, quantity: 3, status: "available" },
      },
    ]);
    const ids = w.sender.sent.map((s) => s.headers["webhook-id"]);
    expect(new Set(ids).size).toBe(3);
    expect((await w.deliveryAttempts.recent(orders.id, 10)).map((a) => a.type)).toEqual(["order.placed"]);
    expect((await w.deliveryAttempts.recent(both.id, 10)).map((a) => a.type).sort()).toEqual([
      "inventory.changed",
      "order.placed",
    ]);
  });

  it("does not send a subscription the events that happened before it was created", async () => {
    const w = aWebhookWorld();
    w.event("order.placed");
    w.clock.advance(1);
    await w.subscribe(["order.placed"]);
    await run(w);
    expect(w.sender.sent).toEqual([]);
  });

  it("stores each message once when a relay is repeated after a crash before its acknowledgement", async () => {
    const w = aWebhookWorld();
    await w.subscribe(["order.placed"]);
    w.event("order.placed");
    const acknowledge = w.feed.acknowledge.bind(w.feed);
    w.feed.acknowledge = () => Promise.reject(new Error("crash before the acknowledgement"));
    await expect(w.relay.execute()).rejects.toThrow("crash");
    await w.worker().execute(); // the first relay's message is even delivered before the relay is repeated
    w.feed.acknowledge = acknowledge;
    await w.relay.execute();
    w.clock.advance(60_000);
    await w.worker().execute();
    expect(w.sender.sent).toHaveLength(1);
    expect(w.feed.size).toBe(0);
  });

  it("ignores event types no one can subscribe to, and acknowledges them", async () => {
    const w = aWebhookWorld();
    await w.subscribe(["order.placed"]);
    w.feed.record("category.renamed", {}, w.clock.now());
    await run(w);
    expect(w.sender.sent).toEqual([]);
    expect(w.feed.size).toBe(0);
  });
});

describe("delivering messages", () => {
  it("signs per Standard Webhooks: an independent verifier accepts it with the subscription's secret only", async () => {
    const w = aWebhookWorld();
    const { secret } = await w.subscribe(["order.completed"]);
    w.event("order.completed", { id: 3 });
    await run(w);
    const [sent] = w.sender.sent;
    expect(sent?.headers["webhook-timestamp"]).toBe(String(nowSeconds(w)));
    expect(sent?.headers["content-type"]).toBe("application/json");
    expect(verifyStandardWebhook(secret, sent!.headers, sent!.body, nowSeconds(w))).toBe(true);
    expect(verifyStandardWebhook(w.signer.newSecret(), sent!.headers, sent!.body, nowSeconds(w))).toBe(false);
  });

  it("retries after a 500 and a time-out under the same webhook-id, on the back-off schedule, and logs every attempt", async () => {
    const w = aWebhookWorld(new ScriptedSender(serverError, timedOut, ok));
    const { id, secret } = await w.subscribe(["order.cancelled"]);
    w.event("order.cancelled", { id: 9 });
    expect(await run(w)).toBe(1);
    w.clock.advance(retryDelayMs(1, 5_000, 0.5) - 1);
    expect(await w.worker().execute()).toBe(0); // not due yet
    w.clock.advance(1);
    expect(await w.worker().execute()).toBe(1);
    w.clock.advance(retryDelayMs(2, 5_000, 0.5));
    expect(await w.worker().execute()).toBe(1);
    w.clock.advance(24 * 3_600_000);
    expect(await w.worker().execute()).toBe(0); // delivered: never again
    const sent = w.sender.sent;
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((s) => s.headers["webhook-id"])).size).toBe(1);
    expect(new Set(sent.map((s) => s.body)).size).toBe(1);
    expect(sent.map((s) => s.headers["webhook-timestamp"])).toEqual([
      ...new Set(sent.map((s) => s.headers["webhook-timestamp"])),
    ]);
    const log = await w.deliveryAttempts.recent(id, 10);
    expect(log.map((a) => [a.attempt, a.status, a.error])).toEqual([
      [3, 204, undefined],
      [2, undefined, "timeout after 10000 ms"],
      [1, 500, undefined],
    ]);
    expect(log[2]?.responseBody).toBe("boom");
    expect(log.every((a) => a.messageId === sent[0]?.headers["webhook-id"] && a.type === "order.cancelled")).toBe(true);
    expect(
      verifyStandardWebhook(secret, sent[2]!.headers, sent[2]!.body, Number(sent[2]!.headers["webhook-timestamp"])),
    ).toBe(true);
  });

  it("gives up after the last attempt, about a day after the first, and marks the message failed", async () => {
    const w = aWebhookWorld(new ScriptedSender(serverError));
    const { id } = await w.subscribe(["order.placed"]);
    const eventId = w.event("order.placed");
    const start = w.clock.now().getTime();
    await run(w);
    for (let i = 0; i < 400 && w.sender.sent.length < MAX_ATTEMPTS; i++) {
      w.clock.advance(5 * 60_000);
      await w.worker().execute();
    }
    expect(w.sender.sent).toHaveLength(MAX_ATTEMPTS);
    w.clock.advance(7 * 24 * 3_600_000 - 1);
    await w.worker().execute();
    expect(w.sender.sent).toHaveLength(MAX_ATTEMPTS);
    const [last] = await w.deliveryAttempts.recent(id, 1);
    const hours = (last!.at.getTime() - start) / 3_600_000;
    expect(hours).toBeGreaterThan(20);
    expect(hours).toBeLessThan(30);
    expect((await w.webhookMessages.ofId(`msg_${eventId.slice(4)}_${id}`))?.state).toBe("failed");
  });

  it("spreads retries with jitter, growing exponentially up to a cap", () => {
    expect([1, 2, 3].map((n) => retryDelayMs(n, 5_000, 0.5))).toEqual([5_000, 20_000, 80_000]);
    expect(retryDelayMs(1, 5_000, 0)).toBe(4_000);
    expect(retryDelayMs(1, 5_000, 0.999_999)).toBe(6_000);
    expect(retryDelayMs(9, 5_000, 0.5)).toBe(8 * 3_600_000);
    expect(retryDelayMs(20, 5_000, 0.5)).toBe(8 * 3_600_000);
    expect(retryDelayMs(3, 10, 0.5)).toBe(160);
  });

  it("with two instances working at once, sends every message exactly once", async () => {
    const w = aWebhookWorld();
    await w.subscribe(["inventory.changed"]);
    for (let i = 0; i < 20; i++) w.event("inventory.changed", { petId: i });
    await w.relay.execute();
    await Promise.all([
      w.worker("a", { batch: 7 }).execute(),
      w.worker("b", { batch: 7 }).execute(),
      w.worker("c", { batch: 7 }).execute(),
    ]);
    await Promise.all([w.worker("a", { batch: 7 }).execute(), w.worker("b", { batch: 7 }).execute()]);
    const ids = w.sender.sent.map((s) => s.headers["webhook-id"]);
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
  });

  it("sends again after an instance died holding the lease, once the lease has expired", async () => {
    let release: () => void = () => {};
    const hanging = () => new Promise<never>((_, reject) => (release = () => reject(new Error("process killed"))));
    const w = aWebhookWorld(new ScriptedSender(hanging, ok));
    await w.subscribe(["order.placed"]);
    w.event("order.placed");
    await w.relay.execute();
    const dying = w.worker("dying").execute();
    await Promise.resolve();
    expect(await w.worker("survivor").execute()).toBe(0); // leased
    w.clock.advance(60_000);
    expect(await w.worker("survivor").execute()).toBe(1);
    release();
    await expect(dying).rejects.toThrow("process killed");
    expect(w.sender.sent.map((s) => s.headers["webhook-id"])).toEqual([
      w.sender.sent[0]?.headers["webhook-id"],
      w.sender.sent[0]?.headers["webhook-id"],
    ]);
  });

  it("signs with both secrets for 24 hours after a rotation, then with the new one only", async () => {
    const w = aWebhookWorld();
    const { id, secret: old } = await w.subscribe(["order.placed"]);
    const { secret: fresh } = await new RotateWebhookSecret({ ...w, webhooks: w.webhooks }).execute(id);
    w.event("order.placed");
    await run(w);
    const during = w.sender.sent[0]!;
    expect(during.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    for (const secret of [old, fresh])
      expect(verifyStandardWebhook(secret, during.headers, during.body, nowSeconds(w))).toBe(true);
    w.clock.advance(24 * 3_600_000);
    w.event("order.placed");
    await run(w);
    const after = w.sender.sent[1]!;
    expect(after.headers["webhook-signature"]?.split(" ")).toHaveLength(1);
    expect(verifyStandardWebhook(fresh, after.headers, after.body, nowSeconds(w))).toBe(true);
    expect(verifyStandardWebhook(old, after.headers, after.body, nowSeconds(w))).toBe(false);
  });

  it("sends nothing more to a deleted subscription, even for messages already queued", async () => {
    const w = aWebhookWorld();
    const { id } = await w.subscribe(["order.placed"]);
    w.event("order.placed");
    await w.relay.execute();
    await new DeleteWebhookSubscription(w).execute(id);
    await w.worker().execute();
    expect(w.sender.sent).toEqual([]);
  });

  it("drops a message whose subscription was deleted while a relay was storing it", async () => {
    const w = aWebhookWorld();
    const { id } = await w.subscribe(["order.placed"]);
    w.event("order.placed");
    const enqueue = w.webhookMessages.enqueue.bind(w.webhookMessages);
    w.webhookMessages.enqueue = async (messages) => {
      await new DeleteWebhookSubscription(w).execute(id);
      await enqueue(messages);
    };
    await run(w);
    w.clock.advance(3_600_000);
    await w.worker().execute();
    expect(w.sender.sent).toEqual([]);
  });
});
