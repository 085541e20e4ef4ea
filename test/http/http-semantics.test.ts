import { describe, expect, it } from "vitest";
import { expectError, expectRateLimitHeaders, expectValidationFailed, rawFetch } from "../support/http-assertions.ts";
import { createCategory, placeOrder, stockedPet, stockOf, usePetstore } from "../support/http-fixtures.ts";
import type { TestResponse } from "../support/test-petstore.ts";

/** Every GET of the service, on a fixture where each finds something (pet 1, category 1, order 1, key 1). */
const getPaths = [
  "/pets",
  "/pets?status=available&limit=1",
  "/pets/1",
  "/pets/99",
  "/categories",
  "/categories/1",
  "/store/orders",
  "/store/orders/1",
  "/store/inventory",
  "/store/inventory/1",
  "/admin/api-keys",
  "/admin/api-keys/1",
  "/admin/openapi.json",
  "/openapi.json",
  "/openapi-3.1.json",
  "/docs",
  "/healthz",
  "/readyz",
];

/** Every keyed path, with a method that works there. */
const keyedRoutes = [
  ["GET", "/pets", undefined],
  ["GET", "/pets/1", undefined],
  ["PUT", "/pets/1", { name: "Rex", categoryId: 1 }],
  ["DELETE", "/pets/2", undefined],
  ["GET", "/categories/1", undefined],
  ["PUT", "/categories/1", { name: "Dogs" }],
  ["DELETE", "/categories/9", undefined],
  ["POST", "/store/orders", { petId: 1, quantity: 1 }],
  ["GET", "/store/orders/1", undefined],
  ["PATCH", "/store/orders/1", { shipDate: "2027-01-01T00:00:00Z" }],
  ["DELETE", "/store/orders/1", undefined],
  ["GET", "/store/inventory/1", undefined],
  ["PUT", "/store/inventory/1", { quantity: 3 }],
  ["GET", "/admin/api-keys/1", undefined],
  ["POST", "/admin/api-keys/1/unban", undefined],
  ["GET", "/healthz", undefined],
  ["GET", "/openapi.json", undefined],
] as const;

/** Headers a HEAD must repeat from its GET; the per-request ones (ids, remaining quota) may differ. */
const stable = (res: TestResponse) => {
  const skip = new Set(["x-request-id", "x-ratelimit-remaining", "ratelimit", "x-ratelimit-reset", "date"]);
  return Object.fromEntries([...res.headers].filter(([name]) => !skip.has(name)));
};

describe("HTTP semantics (PRODUCT.md §6)", () => {
  const { t, keys: k } = usePetstore({
    given: async () => {
      await createCategory(t, "Dogs");
      await stockedPet(t, 5);
      await stockedPet(t, 0, "Tom");
      await placeOrder(t, t.adminKey, { petId: 1, quantity: 1 });
    },
  });

  it.each(getPaths)(
    "HEAD %s answers GET's status and headers, Content-Length included, without a body",
    async (path) => {
      const get = await t.client.get(path, { key: t.adminKey });
      const head = await t.client.request("HEAD", path, { key: t.adminKey });
      expect(head.status).toBe(get.status);
      expect(head.body).toBe("");
      expect(stable(head)).toEqual(stable(get));
      expect(head.headers.get("content-length")).toBe(
        String(Buffer.byteLength(typeof get.body === "string" ? get.body : JSON.stringify(get.body))),
      );
    },
  );

  it("HEAD is refused like GET, without the Error body: no key 401, a customer on the key list 403", async () => {
    for (const [path, key, status] of [
      ["/pets", undefined, 401],
      ["/admin/api-keys", k.customer, 403],
    ] as const) {
      const head = await t.client.request("HEAD", path, { key });
      expect(head.status).toBe(status);
      expect(head.body).toBe("");
      expect(head.headers.get("content-type")).toMatch(/^application\/json/);
      expectRateLimitHeaders(head);
    }
  });

  it.each([
    ["/pets", "GET, HEAD, POST, OPTIONS"],
    ["/pets/1", "GET, HEAD, PUT, DELETE, OPTIONS"],
    ["/store/inventory", "GET, HEAD, OPTIONS"],
    ["/admin/api-keys/1/unban", "POST, OPTIONS"],
    ["/openapi.json", "GET, HEAD, OPTIONS"],
    ["/openapi-3.1.json", "GET, HEAD, OPTIONS"],
    ["/healthz", "GET, HEAD, OPTIONS"],
  ])("OPTIONS %s answers 204 with Allow: %s, without a key", async (path, allow) => {
    const res = await t.client.request("OPTIONS", path);
    expect(res.status).toBe(204);
    expect(res.body).toBe("");
    expect(res.headers.get("allow")).toBe(allow);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    if (path !== "/healthz") expectRateLimitHeaders(res);
  });

  it("OPTIONS checks path parameters as every other method does: 400 for a malformed id, 404 for one beyond every id", async () => {
    for (const path of [
      "/pets/abc",
      "/pets/02",
      "/categories/1.5",
      "/store/orders/-0",
      "/admin/api-keys/x/unban",
      "/store/inventory/99999999999999999999",
    ]) {
      const res = await t.client.request("OPTIONS", path);
      expectError(res, 400, "validation_failed");
      expect(res.headers.get("allow"), path).toBeNull();
    }
    expectError(await t.client.request("OPTIONS", "/pets/9007199254740993"), 404, "not_found");
  });

  it("answers 405 with Allow for the methods a path does not have, HEAD and OPTIONS listed", async () => {
    const res = await t.client.patch("/pets", { key: t.adminKey, body: {} });
    expectError(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe("GET, HEAD, POST, OPTIONS");
  });

  it.each(keyedRoutes)(
    "%s %s refuses an undeclared query parameter with 400 before acting",
    async (method, path, body) => {
      const before = await stockOf(t, 1);
      const res = await t.client.request(method, `${path}?foo=bar`, { key: t.adminKey, body });
      expectValidationFailed(res, "query.foo");
      expect(res.body.details).toEqual([{ path: "query.foo", message: "Unknown parameter: foo" }]);
      expect(await stockOf(t, 1)).toBe(before);
      expect((await t.client.get("/store/orders/1", { key: t.adminKey })).status).toBe(200);
    },
  );

  it("lists every problem of path, query and body at once", async () => {
    const res = await t.client.put("/pets/abc?foo=1", { key: t.adminKey, body: { name: "", categoryId: "x" } });
    expectValidationFailed(res, "path.petId", "query.foo", "body.name", "body.categoryId");
    expect(res.body.message).toBe("The request is not valid");
  });

  it("sends buffered answers with Content-Length, never chunked: resources, lists, errors, documents", async () => {
    for (const [method, path] of [
      ["GET", "/pets/1"],
      ["GET", "/pets"],
      ["GET", "/pets/99"],
      ["POST", "/pets"],
      ["GET", "/openapi.json"],
      ["GET", "/nowhere"],
    ] as const) {
      const res = await rawFetch(t, method, path, {
        headers: { "x-api-key": t.adminKey, "content-type": "application/json" },
        body: method === "POST" ? "{}" : undefined,
      });
      const text = typeof res.body === "string" ? res.body : JSON.stringify(res.body);
      expect(res.headers.get("content-length"), `${method} ${path}`).toBe(String(Buffer.byteLength(text)));
      expect(res.headers.get("transfer-encoding"), `${method} ${path}`).toBeNull();
    }
    const deleted = await t.client.delete("/pets/2", { key: t.adminKey });
    expect(deleted.status).toBe(204);
    expect(deleted.headers.get("content-length")).toBeNull();
  });

  it.each(["/pets/", "/pets/1/", "/categories/", "/store/orders/", "/admin/api-keys/", "/openapi.json/", "/healthz/"])(
    "answers %s, a known path with a trailing slash, 404 not_found like any unknown path",
    async (path) => {
      expectError(await t.client.get(path, { key: t.adminKey }), 404, "not_found");
      expectError(await t.client.post(path, { key: t.adminKey, body: { name: "Birds" } }), 404, "not_found");
    },
  );

  it("creates nothing through a trailing-slash path", async () => {
    expectError(await t.client.post("/categories/", { key: t.adminKey, body: { name: "Birds" } }), 404, "not_found");
    expect((await t.client.get("/categories", { key: t.adminKey })).body.map((c: { name: string }) => c.name)).toEqual([
      "Dogs",
    ]);
  });
});

describe("refusals are never kept under an Idempotency-Key (PRODUCT.md §6)", () => {
  const { t, keys: k } = usePetstore();

  const key = { "idempotency-key": "retry-me" };

  it("a 415 is not replayed: the corrected retry with the same key creates the category", async () => {
    const wrong = await rawFetch(t, "POST", "/categories", {
      headers: { "x-api-key": k.staff, "content-type": "text/plain", ...key },
      body: JSON.stringify({ name: "Birds" }),
    });
    expectError(wrong, 415, "unsupported_media_type");
    const corrected = await t.client.post("/categories", { key: k.staff, body: { name: "Birds" }, headers: key });
    expect(corrected.status).toBe(201);
    expect(corrected.headers.get("idempotent-replayed")).toBeNull();
    const replay = await t.client.post("/categories", { key: k.staff, body: { name: "Birds" }, headers: key });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(corrected.body);
  });

  it("neither are 400s (bad JSON, bad body, bad query), 413 or 403", async () => {
    const pet = await stockedPet(t, 5);
    const send = (body: string, path = "/store/orders", apiKey = k.customer) =>
      rawFetch(t, "POST", path, { headers: { "x-api-key": apiKey, "content-type": "application/json", ...key }, body });
    expectError(await send("{"), 400, "invalid_json");
    expectValidationFailed(await send(JSON.stringify({ petId: pet.id })), "body.quantity");
    expectValidationFailed(await send(JSON.stringify({ petId: pet.id, quantity: 1 }), "/store/orders?x=1"), "query.x");
    expectError(
      await send(`${JSON.stringify({ petId: pet.id, quantity: 1 })}${" ".repeat(70_000)}`),
      413,
      "payload_too_large",
    );
    expectError(await send(JSON.stringify({ name: "Rex", categoryId: 1 }), "/pets"), 403, "forbidden");
    const placed = await send(JSON.stringify({ petId: pet.id, quantity: 2 }));
    expect(placed.status).toBe(201);
    expect(placed.headers.get("idempotent-replayed")).toBeNull();
    expect(await stockOf(t, pet.id)).toBe(3);
  });

  it("but an outcome of the operation (422) is kept and replayed", async () => {
    const order = { petId: 999, quantity: 1 };
    expectError(
      await t.client.post("/store/orders", { key: k.customer, body: order, headers: key }),
      422,
      "unknown_pet",
    );
    const retry = await t.client.post("/store/orders", { key: k.customer, body: order, headers: key });
    expectError(retry, 422, "unknown_pet");
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
  });
});

describe("CORS preflight (PRODUCT.md §6)", () => {
  const { t } = usePetstore({ keys: false, env: { PETSTORE_CORS_ORIGINS: "https://shop.example" } });

  it("answers the path's OPTIONS with Allow and the preflight headers for a configured origin", async () => {
    const preflight = await t.client.request("OPTIONS", "/pets/1", {
      headers: {
        origin: "https://shop.example",
        "access-control-request-method": "PUT",
        "access-control-request-headers": "x-api-key, if-match",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("allow")).toBe("GET, HEAD, PUT, DELETE, OPTIONS");
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect(preflight.headers.get("access-control-allow-methods")).toBe("GET, HEAD, PUT, DELETE, OPTIONS");
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/X-API-Key.*If-Match/);
    const other = await t.client.request("OPTIONS", "/pets/1", {
      headers: { origin: "https://evil.example", "access-control-request-method": "PUT" },
    });
    expect(other.status).toBe(204);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    expect(other.headers.get("access-control-allow-methods")).toBeNull();
  });
});
