import { describe, expect, it } from "vitest";
import { HmacWebhookSigner } from "../../adapters/crypto/hmac-webhook-signer.ts";
import { CreateWebhookSubscription } from "../../core/webhooks/create-webhook-subscription.ts";
import { DeleteWebhookSubscription } from "../../core/webhooks/delete-webhook-subscription.ts";
import { GetWebhookSubscription } from "../../core/webhooks/get-webhook-subscription.ts";
import { ListWebhookDeliveries } from "../../core/webhooks/list-webhook-deliveries.ts";
import { ListWebhookSubscriptions } from "../../core/webhooks/list-webhook-subscriptions.ts";
import { RotateWebhookSecret } from "../../core/webhooks/rotate-webhook-secret.ts";
import { aWorld } from "./world.ts";

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "resolved",
    (e: { code?: string }) => e.code,
  );

const setUp = (allowPrivateTargets = false) => {
  const world = aWorld();
  const signer = new HmacWebhookSigner();
  const resolver = { resolve: async (host: string) => (host === "inside.example" ? ["10.0.0.5"] : ["93.184.215.14"]) };
  const ports = { ...world, signer, resolver };
  return {
    world,
    create: new CreateWebhookSubscription(ports, { allowPrivateTargets }),
    rotate: new RotateWebhookSecret(ports),
    remove: new DeleteWebhookSubscription(world),
    get: new GetWebhookSubscription(world.webhooks),
    list: new ListWebhookSubscriptions(world.webhooks),
    deliveries: new ListWebhookDeliveries(world),
  };
};

describe("webhook subscriptions", () => {
  it("creates a subscription with increasing ids, one secret, the events once each", async () => {
    const { create, get, list } = setUp();
    const first = await create.execute({
      url: "https://hooks.example/a",
      events: ["order.placed", "order.placed"],
      description: "warehouse",
    });
    const second = await create.execute({ url: "https://hooks.example/b", events: ["inventory.changed"] });
    expect([first.subscription.id, second.subscription.id]).toEqual([1, 2]);
    expect(first.secret).toMatch(/^whsec_/);
    expect(await get.execute(1)).toEqual({
      id: 1,
      url: "https://hooks.example/a",
      events: ["order.placed"],
      description: "warehouse",
      secrets: [{ value: first.secret, expiresAt: undefined }],
      createdAt: new Date("2026-11-21T12:00:00.000Z"),
    });
    expect((await list.execute({ limit: 1 })).nextAfter).toBe(1);
  });

  it("refuses private targets unless they are allowed, and stores nothing then", async () => {
    const { create, list } = setUp();
    for (const url of ["http://127.0.0.1:9/", "http://inside.example/", "http://[::1]/"]) {
      expect(await codeOf(create.execute({ url, events: ["order.placed"] }))).toBe("webhook_target_refused");
    }
    expect((await list.execute({ limit: 10 })).items).toEqual([]);
    expect(await codeOf(setUp(true).create.execute({ url: "http://127.0.0.1:9/", events: ["order.placed"] }))).toBe(
      "resolved",
    );
  });

  it("answers not_found for a missing subscription on get, delete, rotate and deliveries", async () => {
    const { get, remove, rotate, deliveries } = setUp();
    for (const call of [get.execute(5), remove.execute(5), rotate.execute(5), deliveries.execute(5)]) {
      expect(await codeOf(call)).toBe("not_found");
    }
  });

  it("rotation: the new secret first, the old one expiring in 24 hours, anything older dropped", async () => {
    const { create, rotate, get, world } = setUp();
    const { secret: s1 } = await create.execute({ url: "https://hooks.example/a", events: ["order.placed"] });
    const { secret: s2 } = await rotate.execute(1);
    world.clock.advance(1000);
    const { secret: s3 } = await rotate.execute(1);
    expect(new Set([s1, s2, s3]).size).toBe(3);
    expect((await get.execute(1)).secrets).toEqual([
      { value: s3, expiresAt: undefined },
      { value: s2, expiresAt: new Date("2026-11-22T12:00:01.000Z") },
    ]);
  });

  it("two rotations at once both take effect in turn: the secret each returned was current at some point", async () => {
    const { create, rotate, get } = setUp();
    await create.execute({ url: "https://hooks.example/a", events: ["order.placed"] });
    const [a, b] = await Promise.all([rotate.execute(1), rotate.execute(1)]);
    const secrets = (await get.execute(1)).secrets.map((s) => s.value);
    expect(secrets).toHaveLength(2);
    expect(new Set(secrets)).toEqual(new Set([a.secret, b.secret]));
  });
});
