import { describe, expect, it } from "vitest";
import { expectError, expectValidationFailed } from "../support/http-assertions.ts";
import { createCategory, placeOrder, stockedPet, usePetstore } from "../support/http-fixtures.ts";

/** Each single resource: where it is read, a change that works on it, and its entity-tag letter. */
const resources = [
  ["/pets/1", "PUT", { name: "Max", categoryId: 1 }, "p"],
  ["/categories/1", "PUT", { name: "Hounds" }, "c"],
  ["/store/orders/1", "PATCH", { shipDate: "2027-01-01T00:00:00Z" }, "o"],
  ["/store/inventory/1", "PUT", { quantity: 7 }, "i"],
] as const;

describe("conditional requests (PRODUCT.md §6)", () => {
  const { t, keys: k } = usePetstore({
    given: async () => {
      await createCategory(t, "Dogs");
      await stockedPet(t, 5);
      await placeOrder(t, k.customer, { petId: 1, quantity: 1 });
    },
  });

  it.each(resources)(
    "GET %s carries a strong ETag; If-None-Match with it answers 304 without a body",
    async (path, _m, _b, letter) => {
      const first = await t.client.get(path, { key: t.adminKey });
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(new RegExp(`^"${letter}1r\\d+"$`));
      const again = await t.client.get(path, { key: t.adminKey, headers: { "if-none-match": etag } });
      expect(again.status).toBe(304);
      expect(again.body).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
      expect((await t.client.get(path, { key: t.adminKey, headers: { "if-none-match": `W/${etag}` } })).status).toBe(
        304,
      );
      expect((await t.client.get(path, { key: t.adminKey, headers: { "if-none-match": '"x1r1"' } })).status).toBe(200);
    },
  );

  it.each(resources)(
    "%s: %s with the current If-Match changes it and answers the new tag; a stale one is 412 and changes nothing",
    async (path, method, body) => {
      const read = await t.client.get(path, { key: t.adminKey });
      const etag = read.headers.get("etag")!;
      const changed = await t.client.request(method, path, { key: t.adminKey, body, headers: { "if-match": etag } });
      expect(changed.status).toBe(200);
      expect(changed.headers.get("etag")).not.toBe(etag);
      const after = await t.client.get(path, { key: t.adminKey });
      expect(after.headers.get("etag")).toBe(changed.headers.get("etag"));
      const stale = await t.client.request(method, path, { key: t.adminKey, body, headers: { "if-match": etag } });
      expectError(stale, 412, "precondition_failed");
      expect((await t.client.get(path, { key: t.adminKey })).body).toEqual(after.body);
    },
  );

  it("DELETE with a stale If-Match is 412 and deletes nothing; with the current one it deletes", async () => {
    const category = await createCategory(t, "Cats");
    const path = `/categories/${category.id}`;
    const etag = (await t.client.get(path, { key: t.adminKey })).headers.get("etag")!;
    await t.client.put(path, { key: t.adminKey, body: { name: "Kittens" } });
    expectError(
      await t.client.delete(path, { key: t.adminKey, headers: { "if-match": etag } }),
      412,
      "precondition_failed",
    );
    expect((await t.client.get(path, { key: t.adminKey })).status).toBe(200);
    const current = (await t.client.get(path, { key: t.adminKey })).headers.get("etag")!;
    expect((await t.client.delete(path, { key: t.adminKey, headers: { "if-match": current } })).status).toBe(204);
  });

  it("a tag of another resource, a weak tag or garbage never matches (412); * and no header put no condition; two tags are 400", async () => {
    const pet = (await t.client.get("/pets/1", { key: t.adminKey })).headers.get("etag")!;
    const body = { name: "Dogs" };
    expectError(
      await t.client.put("/categories/1", { key: t.adminKey, body, headers: { "if-match": pet } }),
      412,
      "precondition_failed",
    );
    const category = (await t.client.get("/categories/1", { key: t.adminKey })).headers.get("etag")!;
    expectError(
      await t.client.put("/categories/1", { key: t.adminKey, body, headers: { "if-match": `W/${category}` } }),
      412,
      "precondition_failed",
    );
    expectError(
      await t.client.put("/categories/1", { key: t.adminKey, body, headers: { "if-match": "nonsense" } }),
      412,
      "precondition_failed",
    );
    expectValidationFailed(
      await t.client.put("/categories/1", { key: t.adminKey, body, headers: { "if-match": `${category}, "c1r99"` } }),
      "header.If-Match",
    );
    expect((await t.client.put("/categories/1", { key: t.adminKey, body, headers: { "if-match": "*" } })).status).toBe(
      200,
    );
    expect((await t.client.put("/categories/1", { key: t.adminKey, body })).status).toBe(200);
  });

  it("two staff members editing one pet: the second write, made from the old tag, is refused", async () => {
    const etag = (await t.client.get("/pets/1", { key: k.staff })).headers.get("etag")!;
    const first = await t.client.put("/pets/1", {
      key: k.staff,
      body: { name: "Alpha", categoryId: 1 },
      headers: { "if-match": etag },
    });
    const second = await t.client.put("/pets/1", {
      key: t.adminKey,
      body: { name: "Beta", categoryId: 1 },
      headers: { "if-match": etag },
    });
    expect(first.status).toBe(200);
    expectError(second, 412, "precondition_failed");
    expect((await t.client.get("/pets?ids=1", { key: k.staff })).body[0].name).toBe("Alpha");
  });
});
