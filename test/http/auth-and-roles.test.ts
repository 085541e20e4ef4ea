import { describe, expect, it } from "vitest";
import { expectError } from "../support/http-assertions.ts";
import { createCategory, placeOrder, stockedPet, usePetstore } from "../support/http-fixtures.ts";

type Op = readonly [method: string, path: string, body?: unknown];

/** Every operation of PRODUCT.md §4 and §2, with a body each would accept given the fixture below. */
const catalogReads: Op[] = [
  ["GET", "/pets"],
  ["GET", "/pets/1"],
  ["GET", "/categories"],
  ["GET", "/categories/1"],
  ["GET", "/store/inventory"],
  ["GET", "/store/inventory/1"],
];
const customerWrites: Op[] = [
  ["POST", "/store/orders", { petId: 1, quantity: 1 }],
  ["GET", "/store/orders"],
];
const staffOnly: Op[] = [
  ["POST", "/pets", { name: "Tom", categoryId: 1 }],
  ["PUT", "/pets/1", { name: "Max", categoryId: 1 }],
  ["DELETE", "/pets/2"],
  ["POST", "/categories", { name: "Birds" }],
  ["PUT", "/categories/1", { name: "Hounds" }],
  ["DELETE", "/categories/2"],
  ["PATCH", "/store/orders/1", { complete: true }],
  ["PUT", "/store/inventory/1", { quantity: 3 }],
];
const adminOnly: Op[] = [
  ["POST", "/admin/api-keys", { label: "new", role: "customer", plan: "free" }],
  ["GET", "/admin/api-keys"],
  ["GET", "/admin/api-keys/1"],
  ["PATCH", "/admin/api-keys/2", { label: "renamed" }],
  ["POST", "/admin/api-keys/2/unban"],
  ["DELETE", "/admin/api-keys/2"],
];
const everyOperation: Op[] = [
  ...catalogReads,
  ...customerWrites,
  ["GET", "/store/orders/1"],
  ["DELETE", "/store/orders/2"],
  ...staffOnly,
  ...adminOnly,
];

describe("authentication and roles", () => {
  let staff: string;
  let customer: string;
  // Two keys of its own rather than the fixture's three: the tests below make key 4.
  const { t } = usePetstore({
    keys: false,
    given: async () => {
      staff = await t.newKey("staff"); // key 2
      customer = await t.newKey("customer"); // key 3
      await createCategory(t, "Dogs");
      await createCategory(t, "Empty");
      await stockedPet(t, 10); // pet 1
      await stockedPet(t, 0, "Spare"); // pet 2
      await placeOrder(t, customer, { petId: 1, quantity: 1 }); // order 1, the customer's
      await placeOrder(t, customer, { petId: 1, quantity: 1 }); // order 2, the customer's
    },
  });

  /** `op` as vitest's it.each spreads it: [method, path, body?]. */
  const call = (op: readonly unknown[], key: string | undefined) => {
    const [method, path, body] = op as Op;
    return t.client.request(method, path, { key, body });
  };

  /** Everything stored, read straight from the stores. */
  const snapshot = async () => ({
    pets: await t.stores.pets.list({ limit: 100 }),
    categories: await t.stores.categories.list({ limit: 100 }),
    orders: await t.stores.orders.list({ limit: 100 }),
    stock: await Promise.all([1, 2, 3].map(async (id) => [id, (await t.stores.pets.ofId(id))?.stock])),
    keys: await t.stores.apiKeys.list({ limit: 100 }),
  });

  describe("401 unauthorized", () => {
    it.each(everyOperation)("%s %s without a key, with an unknown key and with an empty key", async (...op) => {
      const before = await snapshot();
      expectError(await call(op, undefined), 401, "unauthorized");
      expectError(await call(op, "not-a-key-0123456789abcdefghijklmnopqrstuvwxyz"), 401, "unauthorized");
      expectError(await call(op, ""), 401, "unauthorized");
      expect(await snapshot()).toEqual(before);
    });

    it("answers 401 to a revoked key on every operation", async () => {
      const revoked = await t.newKey("admin"); // key 4
      expect((await t.client.delete("/admin/api-keys/4", { key: t.adminKey })).status).toBe(204);
      const before = await snapshot();
      for (const op of everyOperation) expectError(await call(op, revoked), 401, "unauthorized");
      expect(await snapshot()).toEqual(before);
    });

    it("does not take the key from the query string or another header", async () => {
      expectError(await t.client.get(`/pets?api_key=${t.adminKey}`), 401, "unauthorized");
      expectError(
        await t.client.get("/pets", { headers: { authorization: `Bearer ${t.adminKey}` } }),
        401,
        "unauthorized",
      );
    });
  });

  describe("403 forbidden", () => {
    it.each([...staffOnly, ...adminOnly])("a customer may not %s %s, and nothing changes", async (...op) => {
      const before = await snapshot();
      expectError(await call(op, customer), 403, "forbidden");
      expect(await snapshot()).toEqual(before);
    });

    it.each(adminOnly)("staff may not %s %s, and nothing changes", async (...op) => {
      const before = await snapshot();
      expectError(await call(op, staff), 403, "forbidden");
      expect(await snapshot()).toEqual(before);
    });

    it("checks the role before the body", async () => {
      expectError(await t.client.post("/pets", { key: customer, body: { nonsense: true } }), 403, "forbidden");
      expectError(
        await t.client.post("/pets", { key: customer, rawBody: "{", headers: { "content-type": "text/plain" } }),
        403,
        "forbidden",
      );
    });
  });

  describe("what each role may do", () => {
    it.each([...catalogReads, ...customerWrites, ["GET", "/store/orders/1"], ["DELETE", "/store/orders/2"]] as Op[])(
      "a customer may %s %s",
      async (...op) => {
        const res = await call(op, customer);
        expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(200);
        expect(res.status).toBeLessThan(300);
      },
    );

    it.each([
      ...catalogReads,
      ...customerWrites,
      ["GET", "/store/orders/1"],
      ...staffOnly,
      ["DELETE", "/store/orders/2"],
    ] as Op[])("staff may %s %s", async (...op) => {
      const res = await call(op, staff);
      expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(200);
      expect(res.status).toBeLessThan(300);
    });

    it("admin may do every operation", async () => {
      for (const op of everyOperation) {
        const res = await call(op, t.adminKey);
        expect(res.status, `${op[0]} ${op[1]}: ${JSON.stringify(res.body)}`).toBeGreaterThanOrEqual(200);
        expect(res.status).toBeLessThan(300);
      }
    });

    it("a key whose role is changed gets the new role's permissions on its next request", async () => {
      expectError(await t.client.post("/categories", { key: customer, body: { name: "Birds" } }), 403, "forbidden");
      await t.client.patch("/admin/api-keys/3", { key: t.adminKey, body: { role: "staff" } });
      expect((await t.client.post("/categories", { key: customer, body: { name: "Birds" } })).status).toBe(201);
      await t.client.patch("/admin/api-keys/3", { key: t.adminKey, body: { role: "customer" } });
      expectError(await t.client.post("/categories", { key: customer, body: { name: "Fish" } }), 403, "forbidden");
    });
  });
});
