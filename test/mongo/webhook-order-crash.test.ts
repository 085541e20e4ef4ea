import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { describeMongo, freshMongoDatabase, mongoUrl, type FreshMongoDatabase } from "../support/mongo.ts";
import { startServiceProcess, type ServiceProcess } from "../support/service-process.ts";
import { ADMIN_KEY } from "../support/test-petstore.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { verifyStandardWebhook } from "../support/webhook-verifier.ts";

/** kill -9 of a service process on MongoDB after an order was acknowledged and before its webhook was sent. */
describeMongo("an order's webhook across kill -9 (service processes on MongoDB)", () => {
  let mongo: FreshMongoDatabase;
  let receiver: WebhookReceiver | undefined;
  const started: ServiceProcess[] = [];
  const start = async (pollMs: number) => {
    const service = await startServiceProcess({
      PETSTORE_STORE: "mongo",
      MONGODB_URL: mongoUrl(),
      MONGODB_DB: mongo.db.databaseName,
      PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
      PETSTORE_WEBHOOK_POLL_MS: String(pollMs),
    });
    started.push(service);
    return service;
  };
  const call = async (service: ServiceProcess, path: string, key: string, body: unknown) => {
    const res = await fetch(`${service.url}${path}`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    mongo = await freshMongoDatabase("webhook_order_crash");
  });
  afterEach(async () => {
    for (const service of started.splice(0)) service.child.kill("SIGKILL");
    await receiver?.close();
  });
  afterAll(async () => {
    await mongo?.close();
  });

  it("the event recorded with the order survives the crash and is delivered, once, by the restarted service", async () => {
    receiver = await startWebhookReceiver([204]);
    // The worker runs once at start-up, then only after a minute: the order below stays unrelayed until the kill.
    const first = await start(60_000);
    const subscribed = await call(first, "/admin/webhooks", ADMIN_KEY, { url: receiver.url, events: ["order.placed"] });
    expect(subscribed.status).toBe(201);
    const key = async (role: string) =>
      (await call(first, "/admin/api-keys", ADMIN_KEY, { label: role, role, plan: "business" })).body.key as string;
    const staff = await key("staff");
    const customer = await key("customer");
    const category = await call(first, "/categories", staff, { name: "Dogs" });
    const pet = await call(first, "/pets", staff, { name: "Rex", categoryId: category.body.id });
    const stock = await fetch(`${first.url}/store/inventory/${pet.body.id}`, {
      method: "PUT",
      headers: { "x-api-key": staff, "content-type": "application/json" },
      body: JSON.stringify({ quantity: 3 }),
    });
    expect(stock.status).toBe(200);
    const order = await call(first, "/store/orders", customer, { petId: pet.body.id, quantity: 1 });
    expect(order.status).toBe(201);

    first.child.kill("SIGKILL");
    await first.exit;
    expect(receiver.received).toHaveLength(0);

    await start(50);
    const [webhook] = await receiver.waitFor(1, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(1);
    expect(verifyStandardWebhook(subscribed.body.secret as string, webhook!.headers, webhook!.body)).toBe(true);
    expect(JSON.parse(webhook!.body)).toMatchObject({
      type: "order.placed",
      data: { id: order.body.id, petId: pet.body.id, quantity: 1 },
    });
  });
});
