import { afterAll, beforeAll, expect, it } from "vitest";
import { connectMongoStores } from "../../adapters/mongo/mongo-stores.ts";
import { KEY_CACHE_MS } from "../../core/access/cached-api-keys.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { describeMongo, freshMongoDatabase, mongoUrl, type FreshMongoDatabase } from "../support/mongo.ts";
import { startTestPetstore, type TestPetstore } from "../support/test-petstore.ts";
import { ban, free, untilBanned } from "../support/limits.ts";

/** Two service instances, each with its own client and pool, sharing one database and one clock. */
describeMongo("two instances on one MongoDB database", () => {
  let mongo: FreshMongoDatabase;
  let a: TestPetstore;
  let b: TestPetstore;
  let staff: string;
  const clock = new ManualClock("2026-11-21T12:00:10.000Z");

  beforeAll(async () => {
    mongo = await freshMongoDatabase("two_instances");
    // The races below are about uniqueness and counts, not latency: on the FerretDB engine, racing inserts of one
    // unique name wait on each other's locks until PostgreSQL's deadlock check aborts one, which runs again after a
    // pause (adapters/mongo/duplicate-key.ts); on a loaded CI machine that outlasted the default 2-second store
    // timeout once (every racer answered 409 or 503, none 201).
    const instance = async () =>
      startTestPetstore({
        clock,
        stores: await connectMongoStores({ url: mongoUrl(), dbName: mongo.db.databaseName, timeoutMs: 15_000 }),
      });
    a = await instance();
    b = await instance();
    staff = await a.newKey("staff");
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await mongo?.close();
  });

  const either = (i: number) => (i % 2 === 0 ? a : b).client;

  it("hands out unique, increasing ids from both", async () => {
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => either(i).post("/categories", { key: staff, body: { name: `Kind ${i}` } })),
    );
    expect(created.map((r) => r.status)).toEqual(Array(20).fill(201));
    const ids = created.map((r) => r.body.id as number).sort((x, y) => x - y);
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it("creates a category name raced from both instances once", { timeout: 60_000 }, async () => {
    const raced = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        either(i).post("/categories", { key: staff, body: { name: i % 2 ? "Ferrets" : "FERRETS" } }),
      ),
    );
    expect(raced.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    expect(raced.filter((r) => r.status === 409).every((r) => r.body.code === "category_name_taken")).toBe(true);
    const named = (await a.client.get("/categories?limit=100", { key: staff })).body.filter(
      (c: { name: string }) => c.name.toLowerCase() === "ferrets",
    );
    expect(named).toHaveLength(1);
  });

  it("never oversells: 200 orders for 50 units admit exactly 50, whichever instance takes them", async () => {
    const customer = await a.newKey("customer");
    const pet = await a.client.post("/pets", { key: staff, body: { name: "Popular", categoryId: 1 } });
    await b.client.put(`/store/inventory/${pet.body.id}`, { key: staff, body: { quantity: 50 } });

    const orders = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        either(i).post("/store/orders", { key: customer, body: { petId: pet.body.id, quantity: 1 } }),
      ),
    );
    expect(orders.filter((r) => r.status === 201)).toHaveLength(50);
    expect(new Set(orders.filter((r) => r.status === 409).map((r) => r.body.code))).toEqual(
      new Set(["insufficient_stock", "pet_not_available"].filter((code) => orders.some((r) => r.body.code === code))),
    );
    expect((await b.client.get(`/store/inventory/${pet.body.id}`, { key: staff })).body).toEqual({
      petId: pet.body.id,
      quantity: 0,
      status: "pending",
    });
  });

  it("counts one rate-limit window across both: a burst past a free key's minute admits at most its limit, and the ban holds on both", async () => {
    const freeKey = await a.newKey("customer", "free");
    const burst = await Promise.all(
      Array.from({ length: untilBanned + ban.strikes }, (_, i) =>
        either(i).get("/categories?limit=1", { key: freeKey }),
      ),
    );
    // The store handed out exactly the minute's limit in shares; an instance still holding units when the other's
    // strikes earned the ban answers 403 instead of admitting them (refused early, never admitted past the limit).
    const admitted = burst.filter((r) => r.status === 200).length;
    expect(admitted).toBeLessThanOrEqual(free.perMinute);
    const windows = await mongo.db
      .collection<{ _id: string; minute: { granted: number } }>("rate_windows")
      .find({ _id: { $regex: /^key:/ } })
      .toArray();
    expect(windows.map((doc) => doc.minute.granted)).toContain(free.perMinute);
    // Refused: 429 until the last strike earns the ban, 403 for requests that reach a gate after it (scheduling decides
    // how many do).
    const refused = burst.filter((r) => r.status === 429).length;
    expect(refused).toBeGreaterThanOrEqual(ban.strikes);
    expect(refused + burst.filter((r) => r.status === 403).length).toBe(burst.length - admitted);

    // The ban shows at once on the instance that made it, and within the key cache's bound on the other, which may
    // still hold units of the minute (docs/security.md).
    clock.advance(KEY_CACHE_MS);
    for (const instance of [a, b]) {
      const banned = await instance.client.get("/categories", { key: freeKey });
      expect(banned.status).toBe(403);
      expect(banned.body.code).toBe("api_key_banned");
      expect(Number(banned.headers.get("retry-after"))).toBeGreaterThan(0);
    }
  });

  it("changes one API key's settings from both at once without undoing either; the admin guard counts exactly the admins", async () => {
    const admin = { key: a.adminKey };
    for (let round = 0; round < 10; round += 1) {
      const [from, to] = round % 2 === 0 ? (["customer", "admin"] as const) : (["admin", "staff"] as const);
      const created = await a.client.post("/admin/api-keys", {
        ...admin,
        body: { label: "raced", role: from, plan: "pro" },
      });
      const path = `/admin/api-keys/${created.body.id}`;

      const answers = await Promise.all([
        a.client.patch(path, { ...admin, body: { label: `round ${round}` } }),
        b.client.patch(path, { ...admin, body: { role: to } }),
      ]);

      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      expect((await b.client.get(path, admin)).body).toMatchObject({ label: `round ${round}`, role: to });
    }
    const keys = (await a.client.get("/admin/api-keys?limit=100", admin)).body as {
      id: number;
      role: string;
      revoked: boolean;
    }[];
    const admins = keys.filter((k) => k.role === "admin" && !k.revoked).map((k) => k.id);
    expect(await a.stores.adminGuard.tracked()).toEqual(admins);
  });
});
