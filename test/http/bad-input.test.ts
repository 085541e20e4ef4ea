import { describe, expect, it } from "vitest";
import { createMemoryStores } from "../../adapters/memory/memory-stores.ts";
import {
  expectError,
  expectRateLimitHeaders,
  expectValidationFailed,
  rawFetch,
  streamOf,
} from "../support/http-assertions.ts";
import { createCategory, placeOrder, stockedPet, usePetstore } from "../support/http-fixtures.ts";
import { startTestPetstore } from "../support/test-petstore.ts";
import { expectedCategory } from "../support/bodies.ts";

const LIMIT = 64 * 1024;

/** Every operation that takes a body, with a body it would accept (given the fixture below). */
const bodyOperations = [
  ["POST", "/pets", { name: "Tom", categoryId: 1 }],
  ["PUT", "/pets/1", { name: "Max", categoryId: 1 }],
  ["POST", "/categories", { name: "Birds" }],
  ["PUT", "/categories/1", { name: "Hounds" }],
  ["POST", "/store/orders", { petId: 1, quantity: 1 }],
  ["PATCH", "/store/orders/1", { shipDate: "2027-01-01T00:00:00Z" }],
  ["PUT", "/store/inventory/1", { quantity: 3 }],
  ["POST", "/admin/api-keys", { label: "new", role: "customer", plan: "free" }],
  ["PATCH", "/admin/api-keys/1", { label: "renamed" }],
] as const;

/** A JSON text of exactly `size` bytes: `value`, padded with spaces. */
const paddedJson = (value: unknown, size: number): string => {
  const text = JSON.stringify(value);
  return text + " ".repeat(size - Buffer.byteLength(text));
};

describe("bad input", () => {
  const { t } = usePetstore({
    keys: false,
    given: async () => {
      await createCategory(t, "Dogs");
      await stockedPet(t, 10);
      await placeOrder(t, t.adminKey, { petId: 1, quantity: 1 });
    },
  });

  /** Everything stored, read straight from the stores. */
  const snapshot = async () => ({
    pets: await t.stores.pets.list({ limit: 100 }),
    categories: await t.stores.categories.list({ limit: 100 }),
    orders: await t.stores.orders.list({ limit: 100 }),
    stock: await Promise.all([1, 2].map(async (id) => [id, (await t.stores.pets.ofId(id))?.stock])),
    keys: (await t.stores.apiKeys.list({ limit: 100 })).map(({ label, role, plan }) => ({ label, role, plan })),
  });

  const send = (method: string, path: string, headers: Record<string, string>, body?: BodyInit) =>
    rawFetch(t, method, path, {
      headers: { "x-api-key": t.adminKey, ...headers },
      ...(body === undefined ? {} : { body }),
    });

  describe.each(bodyOperations)("%s %s", (method, path, valid) => {
    it("accepts application/json with a charset, in any case", async () => {
      const res = await send(
        method,
        path,
        { "content-type": "Application/JSON; charset=utf-8" },
        JSON.stringify(valid),
      );
      expect([200, 201]).toContain(res.status);
    });

    it("answers 415 unsupported_media_type without a JSON content type, and stores nothing", async () => {
      const before = await snapshot();
      const json = JSON.stringify(valid);
      // A byte body gets no Content-Type of its own; a string body would get text/plain.
      expectError(await send(method, path, {}, new TextEncoder().encode(json)), 415, "unsupported_media_type");
      expectError(await send(method, path, { "content-type": "text/plain" }, json), 415, "unsupported_media_type");
      expectError(
        await send(method, path, { "content-type": "application/x-www-form-urlencoded" }, json),
        415,
        "unsupported_media_type",
      );
      expectError(
        await send(method, path, { "content-type": "application/jsonx" }, json),
        415,
        "unsupported_media_type",
      );
      expect(await snapshot()).toEqual(before);
    });

    it("answers 400 invalid_json for a body that does not parse, and stores nothing", async () => {
      const before = await snapshot();
      for (const body of ['{"name": "Rex",', "not json", "", "{'name': 'Rex'}"]) {
        expectError(await send(method, path, { "content-type": "application/json" }, body), 400, "invalid_json");
      }
      expect(await snapshot()).toEqual(before);
    });

    it("answers 400 validation_failed for JSON that is not an object", async () => {
      for (const body of ["null", '"text"', "[]", "42"]) {
        expectValidationFailed(await send(method, path, { "content-type": "application/json" }, body), "body");
      }
    });

    it("answers 413 payload_too_large for a body over 64 KiB, with or without Content-Length, and stores nothing", async () => {
      const before = await snapshot();
      const big = paddedJson(valid, LIMIT + 1);
      const json = { "content-type": "application/json" };
      expectError(
        await send(method, path, { ...json, "content-length": String(LIMIT + 1) }, big),
        413,
        "payload_too_large",
      );
      expectError(await send(method, path, json, streamOf(LIMIT + 1)), 413, "payload_too_large");
      expectError(await send(method, path, json, streamOf(10 * LIMIT)), 413, "payload_too_large");
      // A Content-Length that understates the body does not get it through.
      expectError(
        await send(method, path, { ...json, "content-length": "20" }, streamOf(LIMIT + 1)),
        413,
        "payload_too_large",
      );
      expect(await snapshot()).toEqual(before);
    });
  });

  it("accepts a body of exactly 64 KiB, streamed or with Content-Length", async () => {
    const json = { "content-type": "application/json" };
    const withLength = paddedJson({ name: "Birds" }, LIMIT);
    expect(Buffer.byteLength(withLength)).toBe(LIMIT);
    const first = await send("POST", "/categories", { ...json, "content-length": String(LIMIT) }, withLength);
    expect(first.status).toBe(201);
    const stream = new Blob([paddedJson({ name: "Cats" }, LIMIT)]).stream();
    const second = await send("POST", "/categories", json, stream);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(expectedCategory({ id: 3, name: "Cats" }));
  });

  it("checks the content type before the size", async () => {
    expectError(
      await send("POST", "/categories", { "content-type": "text/plain" }, streamOf(LIMIT + 1)),
      415,
      "unsupported_media_type",
    );
  });

  it("answers 400 validation_failed for a __proto__ property, which is unknown like any other", async () => {
    const res = await send(
      "POST",
      "/categories",
      { "content-type": "application/json" },
      '{"name":"Birds","__proto__":{"admin":true}}',
    );
    expectValidationFailed(res, "body");
    expect((await t.stores.categories.list({ limit: 100 })).map((c) => c.name)).toEqual(["Dogs"]);
  });

  describe("path ids", () => {
    const idRoutes = [
      ["GET", "/categories/{id}", "categoryId", undefined],
      ["PUT", "/categories/{id}", "categoryId", { name: "Birds" }],
      ["DELETE", "/categories/{id}", "categoryId", undefined],
      ["GET", "/store/orders/{id}", "orderId", undefined],
      ["PATCH", "/store/orders/{id}", "orderId", { complete: true }],
      ["DELETE", "/store/orders/{id}", "orderId", undefined],
      ["GET", "/store/inventory/{id}", "petId", undefined],
      ["PUT", "/store/inventory/{id}", "petId", { quantity: 1 }],
      ["GET", "/admin/api-keys/{id}", "keyId", undefined],
      ["PATCH", "/admin/api-keys/{id}", "keyId", { label: "x" }],
      ["DELETE", "/admin/api-keys/{id}", "keyId", undefined],
      ["POST", "/admin/api-keys/{id}/unban", "keyId", undefined],
    ] as const;

    it.each(idRoutes)(
      "%s %s: 400 for ids that are not int64, 404 for int64s that name nothing",
      async (method, template, name, body) => {
        // An id has one spelling: leading zeros are not an alias (`/pets/02` is not `/pets/2`).
        for (const id of [
          "abc",
          "1.5",
          "9223372036854775808",
          "-9223372036854775809",
          "12345678901234567890123",
          "02",
          "007",
          "00",
          "-0",
          "-01",
        ]) {
          const res = await t.client.request(method, template.replace("{id}", id), { key: t.adminKey, body });
          expectValidationFailed(res, `path.${name}`);
        }
        for (const id of ["9223372036854775807", "0", "-1", "77"]) {
          const res = await t.client.request(method, template.replace("{id}", id), { key: t.adminKey, body });
          expectError(res, 404, "not_found");
        }
      },
    );
  });

  it("answers 400 validation_failed for a malformed URL, counted and with the rate-limit headers under /pets", async () => {
    for (const path of ["/pets/%", "/pets/%E0%A4%A", "/store/orders/%zz"]) {
      const res = await t.client.get(path, { key: t.adminKey });
      expectError(res, 400, "validation_failed");
      expectRateLimitHeaders(res);
    }
    expectError(await t.client.get("/pets/%"), 401, "unauthorized");
    expectError(await t.client.get("/nowhere/%"), 400, "validation_failed");
    // OPTIONS needs no key on any path: it is told its URL is malformed without one (a property run found 401 here).
    for (const path of ["/pets/%FF", "/store/orders/%zz"]) {
      const res = await t.client.request("OPTIONS", path);
      expectError(res, 400, "validation_failed");
      expectRateLimitHeaders(res);
    }
  });

  describe("unknown paths", () => {
    it.each([
      "/pets/1/photos",
      "/pets/abc/photos",
      "/categories/1/pets",
      "/store",
      "/store/orders/1/items",
      "/store/inventory/1/history",
      "/admin",
      "/admin/api-keys/1/ban",
    ])("answers 404 not_found for %s, with the rate-limit headers", async (path) => {
      for (const method of ["GET", "POST", "DELETE"]) {
        const res = await t.client.request(method, path, { key: t.adminKey });
        expectError(res, 404, "not_found");
        expectRateLimitHeaders(res);
      }
    });

    it.each(["/", "/nope", "/v2/pets", "/PETS", "/healthz/deep"])("answers 404 not_found for %s", async (path) => {
      expectError(await t.client.get(path, { key: t.adminKey }), 404, "not_found");
      expectError(await t.client.post(path, { key: t.adminKey, body: {} }), 404, "not_found");
    });
  });

  describe("methods", () => {
    it.each([
      ["/pets", ["GET", "POST"], ["PUT", "PATCH", "DELETE"]],
      ["/pets/1", ["GET", "PUT", "DELETE"], ["POST", "PATCH"]],
      ["/categories", ["GET", "POST"], ["PUT", "PATCH", "DELETE"]],
      ["/categories/1", ["GET", "PUT", "DELETE"], ["POST", "PATCH"]],
      ["/store/orders", ["GET", "POST"], ["PUT", "PATCH", "DELETE"]],
      ["/store/orders/1", ["GET", "PATCH", "DELETE"], ["POST", "PUT"]],
      ["/store/inventory", ["GET"], ["POST", "PUT", "PATCH", "DELETE"]],
      ["/store/inventory/1", ["GET", "PUT"], ["POST", "PATCH", "DELETE"]],
      ["/admin/api-keys", ["GET", "POST"], ["PUT", "PATCH", "DELETE"]],
      ["/admin/api-keys/1", ["GET", "PATCH", "DELETE"], ["POST", "PUT"]],
      ["/admin/api-keys/1/unban", ["POST"], ["GET", "PUT", "PATCH", "DELETE"]],
      ["/healthz", ["GET"], ["POST", "PUT", "DELETE"]],
      ["/readyz", ["GET"], ["POST", "PATCH"]],
    ])(
      "%s answers 405 method_not_allowed with Allow: %j, HEAD with GET, and OPTIONS",
      async (path, allowed, refused) => {
        const before = await snapshot();
        for (const method of refused) {
          const res = await t.client.request(method, path, {
            key: t.adminKey,
            ...(method === "GET" ? {} : { body: { name: "x" } }),
          });
          expectError(res, 405, "method_not_allowed");
          const answered = [...allowed, ...(allowed.includes("GET") ? ["HEAD"] : []), "OPTIONS"];
          expect(res.headers.get("allow")?.split(/,\s*/).sort(), `${method} ${path}`).toEqual(answered.sort());
        }
        expect(await snapshot()).toEqual(before);
      },
    );

    it("answers 405 for a known path template whatever the id", async () => {
      const res = await t.client.request("POST", "/pets/abc", { key: t.adminKey });
      expectError(res, 405, "method_not_allowed");
      expect(res.headers.get("allow")).toBe("GET, HEAD, PUT, DELETE, OPTIONS");
    });
  });
});

describe("a failure inside the service", () => {
  it("answers 500 internal_error with the Error shape and nothing of the failure", async () => {
    const stores = createMemoryStores();
    stores.pets.list = async () => {
      throw new Error("MongoServerError: connection to mongodb://root:hunter2@db:27017 refused at PetsCollection.find");
    };
    const t = await startTestPetstore({ stores });
    try {
      const res = await t.client.get("/pets", { key: t.adminKey });
      expectError(res, 500, "internal_error");
      expect(Object.keys(res.body).sort()).toEqual(["code", "message", "status"]);
      expect(JSON.stringify(res.body)).not.toMatch(/mongo|hunter2|PetsCollection|refused/i);
      expectRateLimitHeaders(res);
    } finally {
      await t.close();
    }
  });
});
