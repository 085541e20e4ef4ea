import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../bootstrap/config.ts";
import { createLogger } from "../../bootstrap/logger.ts";
import { composePetstore, type Petstore } from "../../bootstrap/petstore.ts";
import { standaloneDocuments } from "../../adapters/http/openapi/standalone.ts";
import { webhookEventBodies } from "../../adapters/http/schemas.ts";
import { webhookEventTypes, type WebhookEventType } from "../../core/webhooks/webhook-event.ts";
import { ADMIN_KEY, TestClient } from "../support/test-petstore.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { verifyStandardWebhook } from "../support/webhook-verifier.ts";

let petstore: Petstore | undefined;
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await petstore?.close();
  await receiver?.close();
  petstore = receiver = undefined;
});

type Body = { type: string; timestamp: string; data: Record<string, unknown> };

describe("webhooks for what the API does (memory stores, real outbox, loopback receiver)", () => {
  it("sends each event type, signed, once per change, with the documented data", async () => {
    receiver = await startWebhookReceiver([204]);
    const config = loadConfig({
      PETSTORE_ADMIN_KEY: ADMIN_KEY,
      PETSTORE_SEED_DEMO: "false",
      PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
      PETSTORE_WEBHOOK_POLL_MS: "20",
    });
    petstore = await composePetstore(config, createLogger("silent"));
    petstore.webhookWorker.start();
    const client = new TestClient(petstore.app);
    const admin = { key: ADMIN_KEY };
    const subscribed = await client.post("/admin/webhooks", {
      ...admin,
      body: { url: receiver.url, events: [...webhookEventTypes] },
    });
    expect(subscribed.status).toBe(201);
    const secret = subscribed.body.secret as string;
    const key = async (role: string) =>
      (await client.post("/admin/api-keys", { ...admin, body: { label: role, role, plan: "business" } })).body
        .key as string;
    const staff = { key: await key("staff") };
    const customer = { key: await key("customer") };

    const category = await client.post("/categories", { ...staff, body: { name: "Dogs" } });
    const pet = await client.post("/pets", { ...staff, body: { name: "Rex", categoryId: category.body.id } });
    const petId = pet.body.id as number;
    await client.put(`/store/inventory/${petId}`, { ...staff, body: { quantity: 2 } });
    const first = await client.post("/store/orders", { ...customer, body: { petId, quantity: 2 } });
    await client.delete(`/store/orders/${first.body.id}`, customer);
    const second = await client.post("/store/orders", { ...customer, body: { petId, quantity: 2 } });
    const completed = await client.patch(`/store/orders/${second.body.id}`, { ...staff, body: { complete: true } });

    const expected = [
      ["inventory.changed", { petId, quantity: 2 }],
      ["order.placed", { id: first.body.id, petId, quantity: 2, complete: false }],
      ["inventory.changed", { petId, delta: -2 }],
      ["pet.status_changed", { petId, from: "available", to: "pending" }],
      ["order.cancelled", { id: first.body.id, petId, quantity: 2, complete: false }],
      ["inventory.changed", { petId, delta: 2 }],
      ["pet.status_changed", { petId, from: "pending", to: "available" }],
      ["order.placed", { id: second.body.id, petId, quantity: 2, complete: false }],
      ["inventory.changed", { petId, delta: -2 }],
      ["pet.status_changed", { petId, from: "available", to: "pending" }],
      ["order.completed", completed.body],
      ["pet.status_changed", { petId, from: "pending", to: "sold" }],
    ] as const;
    const received = await receiver.waitFor(expected.length);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(expected.length);
    for (const webhook of received) expect(verifyStandardWebhook(secret, webhook.headers, webhook.body)).toBe(true);
    const bodies = received.map((w) => JSON.parse(w.body) as Body);
    // Each body is what the OpenAPI callbacks promise (the same zod schemas the document is built from).
    for (const body of bodies)
      expect(webhookEventBodies[body.type as WebhookEventType].safeParse(body).success, JSON.stringify(body)).toBe(
        true,
      );
    // …and what the OpenAPI 3.1 document's `webhooks` promise, read as JSON Schema 2020-12.
    const document31 = standaloneDocuments().public31;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ components: document31.components }, "doc");
    const webhooks = document31.webhooks as Record<string, { post: Record<string, any> }>;
    for (const body of bodies) {
      const { $ref } = webhooks[body.type]!.post.requestBody.content["application/json"].schema as { $ref: string };
      const validate = ajv.getSchema(`doc${$ref}`)!;
      expect(validate(body), `${JSON.stringify(body)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    const summary = (list: readonly (readonly [string, unknown])[]) =>
      list.map(([type, data]) => JSON.stringify([type, data])).sort();
    expect(summary(bodies.map((b) => [b.type, b.data] as const))).toEqual(summary(expected));
  });
});
