import { describe, expect, it } from "vitest";
import type { DeliveryAttempt } from "../../core/webhooks/delivery-attempt.ts";
import type { WebhookMessage } from "../../core/webhooks/webhook-message.ts";
import type { WebhookSubscription } from "../../core/webhooks/webhook-subscription.ts";
import { freshStoresPerTest, type ContractHarness } from "./harness.ts";

const at = (iso: string) => new Date(iso);
const T0 = at("2026-11-21T12:00:00.000Z");
const later = (ms: number) => new Date(T0.getTime() + ms);

const aSubscription = (overrides: Partial<WebhookSubscription> = {}): WebhookSubscription => ({
  id: 1,
  url: "https://hooks.example/petstore",
  events: ["order.placed", "order.cancelled"],
  description: "warehouse",
  secrets: [{ value: "whsec_AAAA", expiresAt: undefined }],
  createdAt: T0,
  ...overrides,
});

const aMessage = (overrides: Partial<WebhookMessage> = {}): WebhookMessage => ({
  id: "msg_1_1",
  subscriptionId: 1,
  eventId: "evt_1",
  type: "order.placed",
  payload: '{"type":"order.placed","timestamp":"2026-11-21T12:00:00.000Z","data":{"id":1}}',
  state: "pending",
  attempts: 0,
  nextAttemptAt: T0,
  createdAt: T0,
  ...overrides,
});

const anAttempt = (overrides: Partial<DeliveryAttempt> = {}): DeliveryAttempt => ({
  subscriptionId: 1,
  messageId: "msg_1_1",
  type: "order.placed",
  attempt: 1,
  at: T0,
  status: 500,
  error: undefined,
  responseBody: "oops",
  durationMs: 12,
  ...overrides,
});

const lease = (owner: string, until = later(60_000)) => ({ owner, until });

export const webhooksContract = (harness: ContractHarness): void => {
  describe(`WebhookSubscriptions contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const subs = () => stores().webhooks;

    it("stores a subscription and gives it back exactly, description and expiring secrets included", async () => {
      const rotated = aSubscription({
        secrets: [
          { value: "whsec_BBBB", expiresAt: undefined },
          { value: "whsec_AAAA", expiresAt: later(86_400_000) },
        ],
      });
      await subs().add(rotated);
      await subs().add(aSubscription({ id: 2, description: undefined }));
      expect(await subs().ofId(1)).toEqual(rotated);
      expect(await subs().ofId(2)).toEqual(aSubscription({ id: 2, description: undefined }));
      expect(await subs().ofId(3)).toBeUndefined();
    });

    it("lists pages in ascending id order and finds the subscriptions listening to a type", async () => {
      for (const id of [3, 1, 2])
        await subs().add(aSubscription({ id, events: id === 2 ? ["inventory.changed"] : ["order.placed"] }));
      expect((await subs().list({ limit: 2 })).map((s) => s.id)).toEqual([1, 2]);
      expect((await subs().list({ limit: 2, after: 2 })).map((s) => s.id)).toEqual([3]);
      expect((await subs().listeningTo("order.placed")).map((s) => s.id)).toEqual([1, 3]);
      expect((await subs().listeningTo("inventory.changed")).map((s) => s.id)).toEqual([2]);
      expect(await subs().listeningTo("order.completed")).toEqual([]);
    });

    it("replaces secrets only while the expected secret is the current one", async () => {
      await subs().add(aSubscription());
      const next = [
        { value: "whsec_CCCC", expiresAt: undefined },
        { value: "whsec_AAAA", expiresAt: later(1000) },
      ];
      expect(await subs().replaceSecrets(1, "whsec_OTHER", next)).toBe(false);
      expect((await subs().ofId(1))?.secrets).toEqual([{ value: "whsec_AAAA", expiresAt: undefined }]);
      expect(await subs().replaceSecrets(1, "whsec_AAAA", next)).toBe(true);
      expect((await subs().ofId(1))?.secrets).toEqual(next);
      expect(await subs().replaceSecrets(1, "whsec_AAAA", next)).toBe(false);
      expect(await subs().replaceSecrets(9, "whsec_AAAA", next)).toBe(false);
    });

    it("removes a subscription once", async () => {
      await subs().add(aSubscription());
      expect(await subs().remove(1)).toBe(true);
      expect(await subs().remove(1)).toBe(false);
      expect(await subs().ofId(1)).toBeUndefined();
    });
  });

  describe(`WebhookMessages contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const messages = () => stores().webhookMessages;

    it("stores a message once: enqueueing the same id again changes nothing", async () => {
      await messages().enqueue([aMessage()]);
      await messages().enqueue([
        aMessage({ payload: "other", attempts: 5 }),
        aMessage({ id: "msg_2_1", eventId: "evt_2" }),
      ]);
      expect(await messages().ofId("msg_1_1")).toEqual(aMessage());
      expect(await messages().ofId("msg_2_1")).toEqual(aMessage({ id: "msg_2_1", eventId: "evt_2" }));
    });

    it("claims only due, pending, unleased messages, oldest due first, up to the limit", async () => {
      await messages().enqueue([
        aMessage({ id: "late", nextAttemptAt: later(5_000) }),
        aMessage({ id: "b", nextAttemptAt: later(-1_000) }),
        aMessage({ id: "a", nextAttemptAt: later(-2_000) }),
        aMessage({ id: "c", nextAttemptAt: T0 }),
      ]);
      expect((await messages().claimDue(T0, lease("one"), 2)).map((m) => m.id)).toEqual(["a", "b"]);
      expect((await messages().claimDue(T0, lease("two"), 10)).map((m) => m.id)).toEqual(["c"]);
      expect(await messages().claimDue(T0, lease("three"), 10)).toEqual([]);
    });

    it("gives a message to exactly one of many racing claimers", async () => {
      await messages().enqueue(Array.from({ length: 5 }, (_, i) => aMessage({ id: `m${i}` })));
      const claims = await Promise.all(
        Array.from({ length: 10 }, (_, i) => messages().claimDue(T0, lease(`owner-${i}`), 5)),
      );
      const ids = claims.flat().map((m) => m.id);
      expect(ids.sort()).toEqual(["m0", "m1", "m2", "m3", "m4"]);
    });

    it("lets another claimer take a message whose lease expired, and then refuses the old holder's settlement", async () => {
      await messages().enqueue([aMessage()]);
      await messages().claimDue(T0, lease("crashed", later(30_000)), 1);
      expect(await messages().claimDue(later(29_999), lease("early"), 1)).toEqual([]);
      expect((await messages().claimDue(later(30_000), lease("rescuer", later(90_000)), 1)).map((m) => m.id)).toEqual([
        "msg_1_1",
      ]);
      expect(await messages().settle("msg_1_1", "crashed", { state: "delivered", attempts: 1 })).toBe(false);
      expect(await messages().settle("msg_1_1", "rescuer", { state: "delivered", attempts: 1 })).toBe(true);
    });

    it("settles several at once, only those the owner still holds", async () => {
      await messages().enqueue([aMessage({ id: "a" }), aMessage({ id: "b" }), aMessage({ id: "c" })]);
      await messages().claimDue(T0, lease("w", later(30_000)), 2);
      await messages().claimDue(T0, lease("other", later(30_000)), 1);

      const settled = await messages().settleAll("w", [
        { id: "a", settlement: { state: "delivered", attempts: 1 } },
        { id: "b", settlement: { state: "pending", attempts: 1, nextAttemptAt: later(5_000) } },
        { id: "c", settlement: { state: "delivered", attempts: 1 } },
      ]);

      expect(settled).toBe(2);
      expect((await messages().ofId("a"))?.state).toBe("delivered");
      expect(await messages().ofId("b")).toEqual(aMessage({ id: "b", attempts: 1, nextAttemptAt: later(5_000) }));
      expect(await messages().ofId("c")).toEqual(aMessage({ id: "c" }));
      expect(await messages().settleAll("w", [])).toBe(0);
    });

    it("reschedules a retry: attempts and due time change, the lease is dropped", async () => {
      await messages().enqueue([aMessage()]);
      await messages().claimDue(T0, lease("w"), 1);
      expect(
        await messages().settle("msg_1_1", "w", { state: "pending", attempts: 1, nextAttemptAt: later(5_000) }),
      ).toBe(true);
      expect(await messages().ofId("msg_1_1")).toEqual(aMessage({ attempts: 1, nextAttemptAt: later(5_000) }));
      expect(await messages().claimDue(later(4_999), lease("w"), 1)).toEqual([]);
      expect((await messages().claimDue(later(5_000), lease("w"), 1))[0]).toEqual(
        aMessage({ attempts: 1, nextAttemptAt: later(5_000) }),
      );
    });

    it("never claims a delivered or failed message again, and remembers it so a repeated enqueue does not revive it", async () => {
      await messages().enqueue([aMessage({ id: "ok" }), aMessage({ id: "ko" })]);
      await messages().claimDue(T0, lease("w"), 2);
      await messages().settle("ok", "w", { state: "delivered", attempts: 1 });
      await messages().settle("ko", "w", { state: "failed", attempts: 10 });
      await messages().enqueue([aMessage({ id: "ok" }), aMessage({ id: "ko" })]);
      expect(await messages().claimDue(later(3_600_000), lease("w"), 5)).toEqual([]);
      expect((await messages().ofId("ok"))?.state).toBe("delivered");
      expect((await messages().ofId("ko"))?.state).toBe("failed");
    });

    it("tells the backlog: pending messages counted up to a limit, and the oldest one's creation time", async () => {
      expect(await messages().backlog(10)).toEqual({ count: 0, oldestCreatedAt: undefined });
      await messages().enqueue([
        aMessage({ id: "old", createdAt: later(-60_000) }),
        aMessage({ id: "mid", createdAt: later(-30_000), nextAttemptAt: later(5_000) }),
        aMessage({ id: "new", createdAt: T0, nextAttemptAt: later(5_000) }),
      ]);
      expect(await messages().backlog(10)).toEqual({ count: 3, oldestCreatedAt: later(-60_000) });
      expect((await messages().backlog(2)).count).toBe(2);
      await messages().claimDue(T0, lease("w"), 1);
      await messages().settle("old", "w", { state: "delivered", attempts: 1 });
      expect(await messages().backlog(10)).toEqual({ count: 2, oldestCreatedAt: later(-30_000) });
    });

    it("removes the messages of one subscription only", async () => {
      await messages().enqueue([aMessage({ id: "x1", subscriptionId: 1 }), aMessage({ id: "x2", subscriptionId: 2 })]);
      await messages().removeForSubscription(1);
      expect(await messages().ofId("x1")).toBeUndefined();
      expect(await messages().ofId("x2")).toBeDefined();
    });
  });

  describe(`DeliveryAttempts contract (${harness.name})`, () => {
    const stores = freshStoresPerTest(harness);
    const attempts = () => stores().deliveryAttempts;

    it("gives back a subscription's attempts newest first, up to the limit, exactly as recorded", async () => {
      const answered = anAttempt({ attempt: 1, at: T0 });
      const timedOut = anAttempt({
        attempt: 2,
        at: later(5_000),
        status: undefined,
        error: "timeout after 10000 ms",
        responseBody: undefined,
      });
      const delivered = anAttempt({ attempt: 3, at: later(25_000), status: 204, responseBody: "" });
      for (const a of [answered, timedOut, delivered]) await attempts().record(a);
      await attempts().record(anAttempt({ subscriptionId: 2 }));
      expect(await attempts().recent(1, 10)).toEqual([delivered, timedOut, answered]);
      expect(await attempts().recent(1, 2)).toEqual([delivered, timedOut]);
      expect(await attempts().recent(3, 10)).toEqual([]);
    });

    it("records several at once as it records them one by one", async () => {
      const first = anAttempt({ attempt: 1, at: T0 });
      const second = anAttempt({
        attempt: 2,
        at: later(5_000),
        status: undefined,
        error: "timeout after 10000 ms",
        responseBody: undefined,
      });
      await attempts().recordAll([first, second, anAttempt({ subscriptionId: 2 })]);
      await attempts().recordAll([]);
      expect(await attempts().recent(1, 10)).toEqual([second, first]);
      expect(await attempts().recent(2, 10)).toHaveLength(1);
    });

    it("forgets the attempts of a removed subscription", async () => {
      await attempts().record(anAttempt());
      await attempts().record(anAttempt({ subscriptionId: 2 }));
      await attempts().removeForSubscription(1);
      expect(await attempts().recent(1, 10)).toEqual([]);
      expect(await attempts().recent(2, 10)).toHaveLength(1);
    });
  });
};
