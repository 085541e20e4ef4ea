import { describe, expect, it } from "vitest";
import { createMemoryStores } from "../../adapters/memory/memory-stores.ts";
import {
  countStatuses,
  expectError,
  expectRateLimitHeaders,
  limitOf,
  rawFetch,
  remainingOf,
  resetOf,
  retryAfterOf,
  streamOf,
  unix,
} from "../support/http-assertions.ts";
import { createCategory, createPet, placeOrder, setStock, usePetstore } from "../support/http-fixtures.ts";
import { ban, free, untilBanned } from "../support/limits.ts";
import { startTestPetstore, type TestResponse } from "../support/test-petstore.ts";
import { planLimits } from "../../core/rate-limiting/plans.ts";

const MINUTE = 60_000;
const START = "2026-11-21T12:00:00.000Z"; // the ManualClock's start
const NEXT_MINUTE = unix("2026-11-21T12:01:00Z");
const NEXT_DAY = unix("2026-11-22T00:00:00Z");

describe("rate-limit headers", () => {
  it("are on every response under /pets, /categories, /store and /admin: every operation and every error path", async () => {
    const stores = createMemoryStores();
    let storeFails = false;
    const listCategories = stores.categories.list.bind(stores.categories);
    stores.categories.list = async (page) => {
      if (storeFails) throw new Error("store exploded");
      return listCategories(page);
    };
    const t = await startTestPetstore({
      stores,
      env: { PETSTORE_GET_PET_SUNSET_AT: "2026-12-01", PETSTORE_BAN_STRIKES: "2" },
    });
    try {
      const staff = await t.newKey("staff"); // 2
      const customer = await t.newKey("customer"); // 3
      const other = await t.newKey("customer"); // 4
      const revoked = await t.newKey("customer"); // 5
      await t.client.delete("/admin/api-keys/5", { key: t.adminKey });
      const tiny = await t.newKey("customer", "enterprise", { perMinute: 1, perDay: 100 }); // 6
      await createCategory(t, "Dogs"); // 1
      await createCategory(t, "Empty"); // 2
      await createPet(t, { name: "Rex", categoryId: 1 }); // 1
      await createPet(t, { name: "Spare", categoryId: 1 }); // 2, stock 0
      await setStock(t, 1, 10);
      await placeOrder(t, customer, { petId: 1, quantity: 1 }); // order 1
      await placeOrder(t, customer, { petId: 1, quantity: 1 }); // order 2
      await placeOrder(t, staff, { petId: 1, quantity: 1 }); // order 3, completed below

      const json = { "content-type": "application/json" };
      type Step = [status: number, label: string, send: () => Promise<TestResponse>];
      const req = (status: number, method: string, path: string, key: string | undefined, body?: unknown): Step => [
        status,
        `${method} ${path}`,
        () => t.client.request(method, path, { key, body }),
      ];
      const raw = (
        status: number,
        label: string,
        method: string,
        path: string,
        headers: Record<string, string>,
        body: BodyInit,
      ): Step => [
        status,
        label,
        () => rawFetch(t, method, path, { headers: { "x-api-key": staff, ...headers }, body }),
      ];

      const steps: Step[] = [
        // Every operation, answered successfully.
        req(200, "GET", "/pets", customer),
        req(201, "POST", "/pets", staff, { name: "Tom", categoryId: 1 }), // pet 3
        req(200, "GET", "/pets/1", customer),
        req(200, "PUT", "/pets/3", staff, { name: "Tommy", categoryId: 1 }),
        req(204, "DELETE", "/pets/3", staff),
        req(200, "GET", "/categories", customer),
        req(201, "POST", "/categories", staff, { name: "Birds" }), // category 3
        req(200, "GET", "/categories/1", customer),
        req(200, "PUT", "/categories/3", staff, { name: "Parrots" }),
        req(204, "DELETE", "/categories/3", staff),
        req(201, "POST", "/store/orders", customer, { petId: 1, quantity: 1 }), // order 4
        req(200, "GET", "/store/orders", customer),
        req(200, "GET", "/store/orders/1", customer),
        req(200, "PATCH", "/store/orders/3", staff, { complete: true }),
        req(204, "DELETE", "/store/orders/4", customer),
        req(200, "GET", "/store/inventory", customer),
        req(200, "GET", "/store/inventory/1", customer),
        req(200, "PUT", "/store/inventory/1", staff, { quantity: 20 }),
        req(201, "POST", "/admin/api-keys", t.adminKey, { label: "x", role: "customer", plan: "free" }), // key 7
        req(200, "GET", "/admin/api-keys", t.adminKey),
        req(200, "GET", "/admin/api-keys/7", t.adminKey),
        req(200, "PATCH", "/admin/api-keys/7", t.adminKey, { plan: "pro" }),
        req(200, "POST", "/admin/api-keys/7/unban", t.adminKey),
        req(204, "DELETE", "/admin/api-keys/7", t.adminKey),
        // 400
        req(400, "POST", "/pets", staff, { name: "", categoryId: "x" }),
        req(400, "GET", "/pets?limit=0", customer),
        req(400, "GET", "/pets?color=brown", customer),
        req(400, "GET", "/pets/abc", customer),
        req(400, "GET", "/pets/%E0%A4%A", customer), // a malformed URL: h3 refuses it before routing
        req(400, "GET", "/store/orders/9223372036854775808", customer),
        req(400, "PUT", "/store/inventory/1", staff, { quantity: -1 }),
        req(400, "POST", "/admin/api-keys", t.adminKey, { label: "x", role: "customer", plan: "enterprise" }),
        raw(400, "invalid JSON", "POST", "/categories", json, "{"),
        // 401
        req(401, "GET", "/pets", undefined),
        req(401, "POST", "/store/orders", "unknown-key", { petId: 1, quantity: 1 }),
        req(401, "GET", "/admin/api-keys", revoked),
        req(401, "GET", "/pets/1/unknown", undefined),
        // 403
        req(403, "POST", "/pets", customer, { name: "Tom", categoryId: 1 }),
        req(403, "PATCH", "/store/orders/1", customer, { complete: true }),
        req(403, "GET", "/admin/api-keys", staff),
        // 404
        req(404, "GET", "/pets/1/photos", customer),
        req(404, "GET", "/store", customer),
        req(404, "DELETE", "/admin/api-keys/1/ban", t.adminKey),
        req(404, "GET", "/categories/99", customer),
        req(404, "PUT", "/pets/99", staff, { name: "Ghost", categoryId: 1 }),
        req(404, "GET", "/store/orders/1", other),
        req(404, "GET", "/store/inventory/99", customer),
        req(404, "GET", "/admin/api-keys/99", t.adminKey),
        // 405
        req(405, "DELETE", "/pets", staff),
        req(405, "PUT", "/store/orders/1", staff, { complete: true }),
        req(405, "GET", "/admin/api-keys/2/unban", t.adminKey),
        // 409
        req(409, "POST", "/categories", staff, { name: "DOGS" }),
        req(409, "DELETE", "/categories/1", staff),
        req(409, "DELETE", "/pets/1", staff),
        req(409, "POST", "/store/orders", customer, { petId: 2, quantity: 1 }),
        req(409, "PATCH", "/store/orders/3", staff, { complete: true }),
        req(409, "DELETE", "/store/orders/3", staff),
        req(409, "PUT", "/pets/1", staff, { name: "Rex", categoryId: 1, status: "sold" }),
        // 413
        raw(
          413,
          "413 with Content-Length",
          "POST",
          "/pets",
          { ...json, "content-length": String(70_000) },
          " ".repeat(70_000),
        ),
        raw(413, "413 streamed", "POST", "/pets", json, streamOf(70_000)),
        // 415
        raw(415, "415 text/plain", "POST", "/pets", { "content-type": "text/plain" }, '{"name":"Tom","categoryId":1}'),
        raw(
          415,
          "415 without Content-Type",
          "PUT",
          "/store/inventory/1",
          {},
          new TextEncoder().encode('{"quantity":1}'),
        ),
        // 422
        req(422, "POST", "/pets", staff, { name: "Tom", categoryId: 99 }),
        req(422, "POST", "/store/orders", customer, { petId: 99, quantity: 1 }),
        // 429 for a key, then its ban (403)
        req(200, "GET", "/pets", tiny),
        req(429, "GET", "/pets", tiny),
        req(429, "GET", "/categories", tiny),
        req(403, "GET", "/store/inventory", tiny),
        // 500
        [
          500,
          "a failing store",
          async () => {
            storeFails = true;
            try {
              return await t.client.get("/categories", { key: customer });
            } finally {
              storeFails = false;
            }
          },
        ],
      ];
      // 429 for an address: requests without a valid key are limited per address on the free plan.
      const unauthenticated = steps.filter(([status]) => status === 401).length;
      for (let i = unauthenticated; i < free.perMinute; i++)
        steps.push(req(401, "GET", `/store/orders?i=${i}`, undefined));
      steps.push(req(429, "GET", "/store/orders", undefined), req(429, "GET", "/admin/api-keys", "unknown-key"));

      const seen = new Set<number>();
      for (const [status, label, send] of steps) {
        const res = await send();
        expect(res.status, `${label}: ${JSON.stringify(res.body)}`).toBe(status);
        expectRateLimitHeaders(res);
        seen.add(status);
      }

      // 410 after the sunset.
      t.clock.set("2026-12-02T00:00:00Z");
      const gone = await t.client.get("/pets/1", { key: customer });
      expectError(gone, 410, "gone");
      expectRateLimitHeaders(gone);
      seen.add(gone.status);

      expect([...seen].sort()).toEqual([200, 201, 204, 400, 401, 403, 404, 405, 409, 410, 413, 415, 422, 429, 500]);
    } finally {
      await t.close();
    }
  });
});

describe("rate limits", () => {
  const { t } = usePetstore({ keys: false });

  const get = (key: string | undefined, path = "/categories") => t.client.get(path, { key });
  const sequentially = async (n: number, key: string | undefined, path = "/categories") => {
    const results: TestResponse[] = [];
    for (let i = 0; i < n; i++) results.push(await get(key, path));
    return results;
  };

  it("X-RateLimit-Remaining counts down within the minute, with the plan's limit and the minute's end as reset", async () => {
    const key = await t.newKey("customer", "free");
    const results = await sequentially(5, key);
    expect(results.map(remainingOf)).toEqual([1, 2, 3, 4, 5].map((n) => free.perMinute - n));
    expect(results.map(limitOf)).toEqual(Array(5).fill(free.perMinute));
    expect(results.map(resetOf)).toEqual(Array(5).fill(NEXT_MINUTE));
    // Errors count as requests too.
    expectError(await get(key, "/categories/99"), 404, "not_found");
    expect(remainingOf(await get(key))).toBe(free.perMinute - 7);
  });

  it.each(
    Object.entries(planLimits).map(([plan, limits]) => [plan as keyof typeof planLimits, limits.perMinute] as const),
  )("the %s plan allows %i requests a minute", async (plan, perMinute) => {
    const key = await t.newKey("customer", plan);
    const first = await get(key);
    expect(limitOf(first)).toBe(perMinute);
    expect(remainingOf(first)).toBe(perMinute - 1);
  });

  /**
   * The rule for a burst past the minute's limit: exactly `admitted` answered 200; every other request refused, 429
   * until the last strike earns the ban, then 403 for those that arrive after it. How many arrive after it is up to the
   * machine's scheduling, so only the bounds are asserted: at least the strikes are 429.
   */
  const expectBurstRefused = (results: TestResponse[], admitted: number, banSeconds: number) => {
    const counts = countStatuses(results);
    expect(counts[200]).toBe(admitted);
    expect((counts[429] ?? 0) + (counts[403] ?? 0)).toBe(results.length - admitted);
    expect(counts[429]).toBeGreaterThanOrEqual(ban.strikes);
    for (const res of results.filter((r) => r.status === 429)) {
      expectError(res, 429, "rate_limited");
      expect(retryAfterOf(res)).toBe(60);
      expectRateLimitHeaders(res);
      expect(remainingOf(res)).toBe(0);
    }
    for (const res of results.filter((r) => r.status === 403)) {
      expectError(res, 403, "api_key_banned");
      expect(retryAfterOf(res)).toBe(banSeconds);
      expect(remainingOf(res)).toBe(0);
    }
  };

  it("a fresh free key sending twice the strikes past its limit at once gets exactly the limit × 2xx, the rest 429 or (after the strikes) 403, then is banned", async () => {
    const key = await t.newKey("customer", "free");
    const results = await Promise.all(Array.from({ length: untilBanned + ban.strikes }, () => get(key)));
    expectBurstRefused(results, free.perMinute, ban.seconds);
    const banned = await get(key);
    expectError(banned, 403, "api_key_banned");
    expect(retryAfterOf(banned)).toBe(ban.seconds);
    expect(remainingOf(banned)).toBe(0);
    expect(resetOf(banned)).toBe(unix("2026-11-21T12:15:00Z"));
  });

  it("a burst whose last requests arrive after the ban took effect: those are 403, the count admitted is still the limit", async () => {
    // What a loaded machine does to a burst sent at once: some requests reach the gate only after the 10th strike.
    const key = await t.newKey("customer", "free");
    const first = await Promise.all(Array.from({ length: untilBanned + 5 }, () => get(key)));
    const late = await Promise.all(Array.from({ length: 5 }, () => get(key)));
    expect(countStatuses(late)).toEqual({ 403: 5 });
    expectBurstRefused([...first, ...late], free.perMinute, ban.seconds);
  });

  it("a key is banned at its last strike, not before", async () => {
    const key = await t.newKey("customer", "free");
    expect(countStatuses(await sequentially(free.perMinute, key))).toEqual({ 200: free.perMinute });
    for (let strike = 1; strike <= ban.strikes; strike++) expectError(await get(key), 429, "rate_limited");
    expectError(await get(key), 403, "api_key_banned");
  });

  it("a ban lasts 15 minutes, a second one within 24 hours 30, a third 60; after a quiet day it is 15 again", async () => {
    const key = await t.newKey("customer", "free");
    const earnBan = async () => {
      const results = await sequentially(untilBanned, key);
      expect(countStatuses(results)).toEqual({ 200: free.perMinute, 429: ban.strikes });
      const banned = await get(key);
      expectError(banned, 403, "api_key_banned");
      return retryAfterOf(banned);
    };
    const sitOut = async (seconds: number) => {
      t.clock.advance(seconds * 1000 - 1000);
      const stillBanned = await get(key);
      expectError(stillBanned, 403, "api_key_banned");
      expect(retryAfterOf(stillBanned)).toBe(1);
      t.clock.advance(1000);
      expect((await get(key)).status).toBe(200);
      t.clock.advance(MINUTE); // a fresh minute
    };

    expect(await earnBan()).toBe(ban.seconds);
    await sitOut(ban.seconds);
    expect(await earnBan()).toBe(2 * ban.seconds);
    await sitOut(2 * ban.seconds);
    expect(await earnBan()).toBe(4 * ban.seconds);
    await sitOut(4 * ban.seconds);
    t.clock.advance(24 * 60 * MINUTE);
    expect(await earnBan()).toBe(ban.seconds);
  });

  it("a second ban after a burst of parallel requests still lasts 30 minutes, not longer", async () => {
    const key = await t.newKey("customer", "free");
    const burst = () => Promise.all(Array.from({ length: untilBanned + ban.strikes }, () => get(key)));
    expectBurstRefused(await burst(), free.perMinute, ban.seconds);
    expect(retryAfterOf(await get(key))).toBe(ban.seconds);
    t.clock.advance(ban.seconds * 1000);
    expectBurstRefused(await burst(), free.perMinute, 2 * ban.seconds);
    const second = await get(key);
    expectError(second, 403, "api_key_banned");
    expect(retryAfterOf(second)).toBe(2 * ban.seconds);
  });

  it("a ban never lasts longer than 24 hours", async () => {
    const long = await startTestPetstore({ env: { PETSTORE_BAN_SECONDS: "50000", PETSTORE_BAN_STRIKES: "1" } });
    try {
      const key = await long.newKey("customer", "enterprise", { perMinute: 1, perDay: 1000 });
      const hit = async () => {
        expect((await long.client.get("/pets", { key })).status).toBe(200);
        expectError(await long.client.get("/pets", { key }), 429, "rate_limited");
        return retryAfterOf(await long.client.get("/pets", { key }));
      };
      expect(await hit()).toBe(50_000);
      long.clock.advance(50_000_000);
      expect(await hit()).toBe(86_400);
    } finally {
      await long.close();
    }
  });

  it("an admin unban lets the key in again", async () => {
    const key = await t.newKey("customer", "free");
    await sequentially(untilBanned, key);
    expectError(await get(key), 403, "api_key_banned");
    t.clock.advance(MINUTE);
    expect((await t.client.post("/admin/api-keys/2/unban", { key: t.adminKey })).status).toBe(200);
    const res = await get(key);
    expect(res.status).toBe(200);
    expect(remainingOf(res)).toBe(free.perMinute - 1);
  });

  it("the ban holds for every operation, and refused requests do not count", async () => {
    const key = await t.newKey("staff", "free");
    await sequentially(untilBanned, key);
    for (const [method, path] of [
      ["GET", "/pets"],
      ["POST", "/categories"],
      ["GET", "/store/unknown"],
      ["DELETE", "/pets"],
    ] as const) {
      const res = await t.client.request(method, path, { key, body: method === "POST" ? { name: "X" } : undefined });
      expectError(res, 403, "api_key_banned");
      expectRateLimitHeaders(res);
      expect(res.headers.get("retry-after")).toBe(String(ban.seconds));
    }
    expect(await t.stores.categories.list({ limit: 10 })).toEqual([]);
  });

  it("a plan change takes effect on the key's next request, and its counts carry over", async () => {
    const key = await t.newKey("customer", "free");
    await sequentially(5, key);
    await t.client.patch("/admin/api-keys/2", { key: t.adminKey, body: { plan: "pro" } });
    const res = await get(key);
    expect(limitOf(res)).toBe(planLimits.pro.perMinute);
    expect(remainingOf(res)).toBe(planLimits.pro.perMinute - 6);
    await t.client.patch("/admin/api-keys/2", {
      key: t.adminKey,
      body: { plan: "enterprise", limits: { perMinute: 8, perDay: 50 } },
    });
    const enterprise = await get(key);
    expect(limitOf(enterprise)).toBe(8);
    expect(remainingOf(enterprise)).toBe(1);
    expect(remainingOf(await get(key))).toBe(0);
    expectError(await get(key), 429, "rate_limited");
  });

  it("RateLimit-Policy states the key's own limits, and the new ones on the request after a change", async () => {
    const policy = (res: TestResponse) => res.headers.get("ratelimit-policy");
    const of = ({ perMinute, perDay }: { perMinute: number; perDay: number }) =>
      `"minute";q=${perMinute};w=60, "day";q=${perDay};w=86400`;
    const freeKey = await t.newKey("customer", "free"); // 2
    const enterprise = await t.newKey("customer", "enterprise", { perMinute: 7, perDay: 70 }); // 3
    expect(policy(await get(freeKey))).toBe(of(free));
    expect(policy(await get(enterprise))).toBe('"minute";q=7;w=60, "day";q=70;w=86400');
    expect(policy(await get(t.adminKey))).toBe(of(planLimits.business));
    await t.client.patch("/admin/api-keys/3", { key: t.adminKey, body: { limits: { perMinute: 9, perDay: 90 } } });
    await t.client.patch("/admin/api-keys/2", { key: t.adminKey, body: { plan: "pro" } });
    expect(policy(await get(enterprise))).toBe('"minute";q=9;w=60, "day";q=90;w=86400');
    expect(policy(await get(freeKey))).toBe(of(planLimits.pro));
  });

  it("an enterprise key gets its own limits", async () => {
    const key = await t.newKey("customer", "enterprise", { perMinute: 4, perDay: 500 });
    const results = await sequentially(5, key);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 429]);
    expect(results.map(limitOf)).toEqual([4, 4, 4, 4, 4]);
    expect(results.map(remainingOf)).toEqual([3, 2, 1, 0, 0]);
  });

  it("enterprise without limits and free with limits are refused with 400 validation_failed", async () => {
    expectError(
      await t.client.post("/admin/api-keys", {
        key: t.adminKey,
        body: { label: "e", role: "customer", plan: "enterprise" },
      }),
      400,
      "validation_failed",
    );
    expectError(
      await t.client.post("/admin/api-keys", {
        key: t.adminKey,
        body: { label: "f", role: "customer", plan: "free", limits: { perMinute: 1, perDay: 2 } },
      }),
      400,
      "validation_failed",
    );
  });

  it("the minute window resets at the next UTC minute; Retry-After counts the seconds to it", async () => {
    const key = await t.newKey("customer", "free");
    t.clock.set("2026-11-21T12:00:30.000Z");
    expect(countStatuses(await sequentially(free.perMinute, key))).toEqual({ 200: free.perMinute });
    const limited = await get(key);
    expectError(limited, 429, "rate_limited");
    expect(retryAfterOf(limited)).toBe(30);
    expect(resetOf(limited)).toBe(NEXT_MINUTE);

    t.clock.set("2026-11-21T12:00:59.500Z");
    const almost = await get(key);
    expectError(almost, 429, "rate_limited");
    expect(retryAfterOf(almost)).toBe(1);

    t.clock.set("2026-11-21T12:01:00.000Z"); // not 60 s after the first request: windows follow the clock
    const fresh = await get(key);
    expect(fresh.status).toBe(200);
    expect(remainingOf(fresh)).toBe(free.perMinute - 1);
    expect(resetOf(fresh)).toBe(unix("2026-11-21T12:02:00Z"));
  });

  it("the day count carries over from minute to minute, and the headers then describe the day", async () => {
    const key = await t.newKey("customer", "enterprise", { perMinute: 3, perDay: 5 });
    const first = await sequentially(4, key);
    expect(first.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    // Minute window (3 left → 0) while it has fewer requests left than the day (5 → 2); on a tie, the minute.
    expect(first.map((r) => [limitOf(r), remainingOf(r), resetOf(r)])).toEqual([
      [3, 2, NEXT_MINUTE],
      [3, 1, NEXT_MINUTE],
      [3, 0, NEXT_MINUTE],
      [3, 0, NEXT_MINUTE],
    ]);

    t.clock.advance(MINUTE);
    const second = await sequentially(3, key);
    expect(second.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(second.map((r) => [limitOf(r), remainingOf(r), resetOf(r)])).toEqual([
      [5, 1, NEXT_DAY],
      [5, 0, NEXT_DAY],
      [5, 0, NEXT_DAY],
    ]);
    const dayLimited = second[2]!;
    expectError(dayLimited, 429, "rate_limited");
    expect(retryAfterOf(dayLimited)).toBe(NEXT_DAY - unix("2026-11-21T12:01:00Z"));

    t.clock.set("2026-11-22T00:00:00.000Z");
    const nextDay = await get(key);
    expect(nextDay.status).toBe(200);
    expect([limitOf(nextDay), remainingOf(nextDay)]).toEqual([3, 2]);
  });

  it("limits requests without a valid key per address: the free plan's minute × 401 with the headers, then 429, never a ban", async () => {
    const results = await sequentially(free.perMinute, undefined, "/pets");
    expect(countStatuses(results)).toEqual({ 401: free.perMinute });
    results.forEach((res) => expectError(res, 401, "unauthorized"));
    expect(results.map(remainingOf)).toEqual(Array.from({ length: free.perMinute }, (_, i) => free.perMinute - 1 - i));
    expect(results.map(limitOf)).toEqual(Array(free.perMinute).fill(free.perMinute));
    expect(resetOf(results[0]!)).toBe(NEXT_MINUTE);

    // Unknown keys count against the same address.
    for (const key of [undefined, "unknown-key", undefined]) {
      const res = await get(key, "/store/inventory");
      expectError(res, 429, "rate_limited");
      expect(retryAfterOf(res)).toBe(60);
      expectRateLimitHeaders(res);
    }
    const more = await Promise.all(Array.from({ length: 30 }, () => get(undefined)));
    expect(countStatuses(more)).toEqual({ 429: 30 });

    // A valid key is limited on its own account, not the address's.
    const key = await t.newKey("customer", "free");
    expect((await get(key)).status).toBe(200);

    t.clock.advance(MINUTE);
    const again = await get(undefined);
    expectError(again, 401, "unauthorized");
    expect(remainingOf(again)).toBe(free.perMinute - 1);
  });

  it("counts exactly under concurrency for an address too", async () => {
    const results = await Promise.all(Array.from({ length: free.perMinute + 15 }, () => get(undefined)));
    expect(countStatuses(results)).toEqual({ 401: free.perMinute, 429: 15 });
  });

  it("starts the clock at the ManualClock's start (a sanity check of the fixtures above)", () => {
    expect(t.clock.now().toISOString()).toBe(START);
  });
});
