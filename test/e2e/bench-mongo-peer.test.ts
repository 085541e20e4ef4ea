import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startChildServer, type ChildServer } from "../../bench/child-server.ts";
import { freeLoopbackPort } from "../support/free-port.ts";
import { peerRequest } from "../support/peer-requests.ts";
import { describeMongo, freshMongoDatabase, mongoUrl, type FreshMongoDatabase } from "../support/mongo.ts";

/** The MongoDB peer `npm run bench -- --mongo-peer` measures the service against does the benched routes' work. */
describeMongo("the Fastify + mongodb peer (bench/peer-fastify-mongo/server.ts)", () => {
  const keys = { customer: ["alice-key-0123456789", "bob-key-0123456789"], staff: "staff-key-0123456789" };
  const [alice, bob] = keys.customer as [string, string];
  let mongo: FreshMongoDatabase;
  let peer: ChildServer;
  beforeAll(async () => {
    mongo = await freshMongoDatabase("bench_peer");
    peer = await startChildServer(
      fileURLToPath(new URL("../../bench/peer-fastify-mongo/server.ts", import.meta.url)),
      await freeLoopbackPort(),
      {
        BENCH_SEEDED_PETS: "30",
        BENCH_SEEDED_STOCK: "3",
        BENCH_PEER_KEYS: JSON.stringify(keys),
        MONGODB_URL: mongoUrl(),
        MONGODB_DB: mongo.db.databaseName,
      },
      { prefix: [], shipLogs: { prefix: [] } },
    );
  });
  afterAll(async () => {
    await peer?.stop();
    await mongo?.close();
  });

  const send = (path: string, key?: string, init?: { method?: string; body?: unknown }) =>
    peerRequest(peer.url, path, key, init);
  const stockOf = async (petId: number) =>
    (await mongo.db.collection<{ _id: number; stock: number }>("pets").findOne({ _id: petId }))?.stock;

  it("checks keys and reads pets by ids, in the order asked, and by pages with a Link to the next", async () => {
    expect(await send("/pets?ids=1")).toMatchObject({ status: 401, body: { code: "unauthorized", status: 401 } });
    const read = await send("/pets?ids=2,1,99", alice);
    expect(read.status).toBe(200);
    expect(read.body).toEqual([
      { id: 2, name: "Rex 2", categoryId: 1, status: "available" },
      { id: 1, name: "Rex 1", categoryId: 1, status: "available" },
    ]);
    expect(read.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
    const page = await send("/pets?limit=20&after=5", alice);
    expect((page.body as { id: number }[]).map((p) => p.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 6));
    expect(page.headers.get("link")).toBe('</pets?limit=20&after=25>; rel="next"');
    const last = await send("/pets?limit=20&after=25", alice);
    expect((last.body as { id: number }[]).map((p) => p.id)).toEqual([26, 27, 28, 29, 30]);
    expect(last.headers.get("link")).toBeNull();
    expect(await send("/pets/7", alice)).toMatchObject({ status: 200, body: { id: 7, name: "Rex 7" } });
    expect(await send("/pets/31", alice)).toMatchObject({ status: 404, body: { code: "not_found" } });
    expect(await send("/pets?ids=1&extra=1", alice)).toMatchObject({
      status: 400,
      body: { code: "validation_failed" },
    });
  });

  it("places an order by taking the units, refuses unknown pets and short stock, and a cancellation gives them back", async () => {
    expect(await send("/store/orders", alice, { method: "POST", body: { petId: 99, quantity: 1 } })).toMatchObject({
      status: 422,
      body: { code: "unknown_pet" },
    });
    expect((await send("/store/orders", alice, { method: "POST", body: { petId: 3, quantity: 0 } })).status).toBe(400);
    const placed = await send("/store/orders", alice, {
      method: "POST",
      body: { petId: 3, quantity: 2, shipDate: "2027-01-05T10:00:00.000Z" },
    });
    expect(placed).toMatchObject({
      status: 201,
      body: { petId: 3, quantity: 2, shipDate: "2027-01-05T10:00:00.000Z", complete: false },
    });
    const { id } = placed.body as { id: number };
    expect(placed.headers.get("location")).toBe(`/store/orders/${id}`);
    expect(await stockOf(3)).toBe(1);
    expect(await send("/store/orders", bob, { method: "POST", body: { petId: 3, quantity: 2 } })).toMatchObject({
      status: 409,
      body: { code: "insufficient_stock" },
    });
    const second = await send("/store/orders", bob, { method: "POST", body: { petId: 3, quantity: 1 } });
    expect((second.body as { id: number }).id).toBe(id + 1);
    expect(await stockOf(3)).toBe(0);

    // Only the key that placed an order may cancel it; a cancelled order is gone.
    expect(await send(`/store/orders/${id}`, bob, { method: "DELETE" })).toMatchObject({ status: 404 });
    expect((await send(`/store/orders/${id}`, alice, { method: "DELETE" })).status).toBe(204);
    expect(await stockOf(3)).toBe(2);
    expect((await send(`/store/orders/${id}`, alice, { method: "DELETE" })).status).toBe(404);
    expect(await stockOf(3)).toBe(2);
    expect((await send(`/store/orders/${id + 1}`, keys.staff, { method: "DELETE" })).status).toBe(204);
    expect(await stockOf(3)).toBe(3);
  });

  it("writes one log line a request", async () => {
    const lines = async () => (await peer.logLines())!;
    // pino writes asynchronously: wait until the count settles before and after.
    const settled = async () => {
      let last = -1;
      for (let tries = 0; tries < 100; tries++) {
        const now = await lines();
        if (now === last) return now;
        last = now;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return last;
    };
    const before = await settled();
    for (let i = 0; i < 5; i++) await send("/pets?ids=1", alice);
    await send("/pets?ids=1");
    expect((await settled()) - before).toBe(6);
  });
});
