import { afterAll, beforeAll, expect, it } from "vitest";
import { describeMongo, freshMongoDatabase, mongoUrl, type FreshMongoDatabase } from "../support/mongo.ts";
import { servePetstore, type ServedPetstore } from "../support/serve-petstore.ts";

/** Data messages of a server-sent event stream, as they come. */
const messages = async function* (body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (data !== undefined)
        yield {
          id: /^id: (.*)$/m.exec(block)?.[1],
          event: JSON.parse(data) as { type: string; data: { id?: number } },
        };
    }
  }
};

describeMongo("GET /events with two instances on one database", () => {
  let mongo: FreshMongoDatabase;
  let a: ServedPetstore;
  let b: ServedPetstore;
  beforeAll(async () => {
    mongo = await freshMongoDatabase("events_two");
    const env = {
      PETSTORE_STORE: "mongo",
      MONGODB_URL: mongoUrl(),
      MONGODB_DB: mongo.db.databaseName,
      PETSTORE_SEED_DEMO: "false",
      PETSTORE_EVENTS_POLL_MS: "50",
      PETSTORE_WEBHOOK_POLL_MS: "50",
      // Start-up creates every index: on a loaded machine that takes more than the default 2 s.
      MONGODB_TIMEOUT_MS: "20000",
    };
    a = await servePetstore(env);
    b = await servePetstore(env);
    // Only A relays: B's stream can only learn of A's orders through the shared log.
    a.petstore.webhookWorker.start();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await mongo?.close();
  });

  it("a key revoked on one instance ends its stream on the other within 2 s, with `end` key_revoked", async () => {
    const created = await fetch(`${a.origin}/admin/api-keys`, {
      method: "POST",
      headers: { "x-api-key": a.adminKey, "content-type": "application/json" },
      body: JSON.stringify({ label: "floor", role: "staff", plan: "pro" }),
    });
    const { id, key } = (await created.json()) as { id: number; key: string };
    const stream = await fetch(`${b.origin}/events`, { headers: { "x-api-key": key } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    expect(text).toContain(": connected");

    const revoked = await fetch(`${a.origin}/admin/api-keys/${id}`, {
      method: "DELETE",
      headers: { "x-api-key": a.adminKey },
    });
    expect(revoked.status).toBe(204);
    const since = performance.now();
    for (let read = await reader.read(); !read.done; read = await reader.read()) text += decoder.decode(read.value);
    const took = performance.now() - since;

    expect(text.endsWith('event: end\ndata: {"reason":"key_revoked"}\n\n')).toBe(true);
    // The bound: B's key cache (1 s) and one poll of the stream (50 ms here).
    expect(took).toBeLessThan(2_000);
  });

  it("a stream on one instance gets the events of writes made through the other, in order, once", async () => {
    const call = async (served: ServedPetstore, method: string, path: string, body?: unknown) =>
      (
        await fetch(`${served.origin}${path}`, {
          method,
          headers: {
            "x-api-key": served.adminKey,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      ).json() as Promise<{ id: number }>;
    const category = await call(a, "POST", "/categories", { name: "Dogs" });
    const pet = await call(a, "POST", "/pets", { name: "Rex", categoryId: category.id });
    await call(a, "PUT", `/store/inventory/${pet.id}`, { quantity: 10 });
    const abort = new AbortController();
    const stream = await fetch(`${b.origin}/events`, {
      headers: { "x-api-key": b.adminKey, "last-event-id": "0" },
      signal: abort.signal,
    });
    const orders = [
      await call(a, "POST", "/store/orders", { petId: pet.id, quantity: 1 }),
      await call(a, "POST", "/store/orders", { petId: pet.id, quantity: 1 }),
    ];

    const seen: { id: string | undefined; type: string; orderId?: number }[] = [];
    for await (const { id, event } of messages(stream.body!)) {
      seen.push({ id, type: event.type, ...(event.type.startsWith("order.") ? { orderId: event.data.id } : {}) });
      if (seen.filter((s) => s.type === "order.placed").length === 2) break;
    }
    abort.abort();

    expect(seen.filter((s) => s.type === "order.placed").map((s) => s.orderId)).toEqual(orders.map((o) => o.id));
    const ids = seen.map((s) => Number(s.id));
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
