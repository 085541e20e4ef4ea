import { beforeEach, describe, expect, it } from "vitest";
import { countStatuses, expectError, expectValidationFailed } from "../support/http-assertions.ts";
import { createCategory, petStatus, placeOrder, stockedPet, stockOf, usePetstore } from "../support/http-fixtures.ts";
import { expectedOrder, newOrder, orderBody } from "../support/bodies.ts";

describe("orders", () => {
  const { t, keys: k } = usePetstore({
    given: async () => {
      await createCategory(t, "Dogs");
    },
  });

  const storedOrders = () => t.stores.orders.list({ limit: 100 });

  describe("POST /store/orders", () => {
    it("places an open order, answers 201 with Location, and reserves the stock", async () => {
      await stockedPet(t, 5);
      const res = await t.client.post("/store/orders", { key: k.customer, body: newOrder({ petId: 1, quantity: 2 }) });
      expect(res.status).toBe(201);
      expect(res.body).toEqual(orderBody({ id: 1, petId: 1, quantity: 2, complete: false }));
      expect(res.headers.get("location")).toBe("/store/orders/1");
      expect((await t.client.get("/store/orders/1", { key: k.customer })).body).toEqual(res.body);
      expect(await stockOf(t, 1)).toBe(3);
      expect(await petStatus(t, 1)).toBe("available");
    });

    it("answers shipDate in UTC even when it was sent with an offset", async () => {
      await stockedPet(t, 5);
      const res = await t.client.post("/store/orders", {
        key: k.customer,
        body: newOrder({ petId: 1, quantity: 1, shipDate: "2026-12-01T10:30:00+02:00" }),
      });
      expect(res.status).toBe(201);
      expect(res.body.shipDate).toMatch(/Z$/);
      expect(Date.parse(res.body.shipDate)).toBe(Date.parse("2026-12-01T08:30:00Z"));
      expect((await t.client.get("/store/orders/1", { key: k.customer })).body.shipDate).toBe(res.body.shipDate);
    });

    it("accepts a quantity of 1000 and staff may order too", async () => {
      await stockedPet(t, 1000);
      expect((await t.client.post("/store/orders", { key: k.staff, body: { petId: 1, quantity: 1000 } })).status).toBe(
        201,
      );
    });

    it("answers 422 unknown_pet for a pet that does not exist", async () => {
      expectError(
        await t.client.post("/store/orders", { key: k.customer, body: { petId: 42, quantity: 1 } }),
        422,
        "unknown_pet",
      );
      expect(await storedOrders()).toEqual([]);
    });

    it.each(["pending", "sold"])("answers 409 pet_not_available for a %s pet, and stores nothing", async (status) => {
      await stockedPet(t, 2);
      if (status === "pending")
        await t.client.put("/pets/1", { key: k.staff, body: { name: "Rex", categoryId: 1, status } });
      else {
        await placeOrder(t, k.customer, { petId: 1, quantity: 2 });
        await t.client.patch("/store/orders/1", { key: k.staff, body: { complete: true } });
      }
      expect(await petStatus(t, 1)).toBe(status);
      const before = await storedOrders();
      expectError(
        await t.client.post("/store/orders", { key: k.customer, body: { petId: 1, quantity: 1 } }),
        409,
        "pet_not_available",
      );
      expect(await storedOrders()).toEqual(before);
    });

    it("answers 409 insufficient_stock, takes no stock and stores nothing", async () => {
      await stockedPet(t, 2);
      await stockedPet(t, 0, "Empty");
      expectError(
        await t.client.post("/store/orders", { key: k.customer, body: { petId: 1, quantity: 3 } }),
        409,
        "insufficient_stock",
      );
      expectError(
        await t.client.post("/store/orders", { key: k.customer, body: { petId: 2, quantity: 1 } }),
        409,
        "insufficient_stock",
      );
      expect(await stockOf(t, 1)).toBe(2);
      expect(await petStatus(t, 1)).toBe("available");
      expect(await storedOrders()).toEqual([]);
    });

    it("lets only one of two racing orders take the last unit", async () => {
      await stockedPet(t, 1);
      const results = await Promise.all([
        t.client.post("/store/orders", { key: k.customer, body: { petId: 1, quantity: 1 } }),
        t.client.post("/store/orders", { key: k.other, body: { petId: 1, quantity: 1 } }),
      ]);
      expect(countStatuses(results)).toEqual({ 201: 1, 409: 1 });
      expect(await stockOf(t, 1)).toBe(0);
      expect(await storedOrders()).toHaveLength(1);
    });

    it.each([
      ["quantity 0", { petId: 1, quantity: 0 }, ["body.quantity"]],
      ["quantity 1001", { petId: 1, quantity: 1001 }, ["body.quantity"]],
      ["a fractional quantity", { petId: 1, quantity: 1.5 }, ["body.quantity"]],
      ["a quantity as a string", { petId: 1, quantity: "1" }, ["body.quantity"]],
      ["a missing quantity", { petId: 1 }, ["body.quantity"]],
      ["a missing petId", { quantity: 1 }, ["body.petId"]],
      ["a petId outside int64", { petId: 1e20, quantity: 1 }, ["body.petId"]],
      ["a petId as a string", { petId: "abc", quantity: 1 }, ["body.petId"]],
      ["a shipDate that is no date", { petId: 1, quantity: 1, shipDate: "tomorrow" }, ["body.shipDate"]],
      ["a shipDate without an offset", { petId: 1, quantity: 1, shipDate: "2026-12-01T10:00:00" }, ["body.shipDate"]],
      ["a shipDate with month 13", { petId: 1, quantity: 1, shipDate: "2026-13-01T10:00:00Z" }, ["body.shipDate"]],
      ["a date without a time", { petId: 1, quantity: 1, shipDate: "2026-12-01" }, ["body.shipDate"]],
      ["complete sent by the client", { petId: 1, quantity: 1, complete: true }, ["body"]],
    ])("answers 400 validation_failed for %s and reserves nothing", async (_, body, paths) => {
      await stockedPet(t, 5);
      expectValidationFailed(await t.client.post("/store/orders", { key: k.customer, body }), ...paths);
      expect(await stockOf(t, 1)).toBe(5);
      expect(await storedOrders()).toEqual([]);
    });
  });

  describe("reading orders", () => {
    beforeEach(async () => {
      await stockedPet(t, 10, "Rex"); // pet 1
      await stockedPet(t, 10, "Tom"); // pet 2
      await placeOrder(t, k.customer, { petId: 1, quantity: 1 }); // 1
      await placeOrder(t, k.other, { petId: 1, quantity: 1 }); // 2
      await placeOrder(t, k.customer, { petId: 2, quantity: 1 }); // 3
      await placeOrder(t, k.staff, { petId: 2, quantity: 1 }); // 4
      await t.client.patch("/store/orders/3", { key: k.staff, body: { complete: true } });
    });
    const ids = async (key: string, query = "") => {
      const res = await t.client.get(`/store/orders${query}`, { key });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.map((o: { id: number }) => o.id);
    };

    it("shows a customer only its own orders and staff every order", async () => {
      expect(await ids(k.customer)).toEqual([1, 3]);
      expect(await ids(k.other)).toEqual([2]);
      expect(await ids(k.staff)).toEqual([1, 2, 3, 4]);
      expect(await ids(t.adminKey)).toEqual([1, 2, 3, 4]);
    });

    it("filters by complete and petId, within what the caller may see", async () => {
      expect(await ids(k.staff, "?complete=true")).toEqual([3]);
      expect(await ids(k.staff, "?complete=false")).toEqual([1, 2, 4]);
      expect(await ids(k.staff, "?petId=1")).toEqual([1, 2]);
      expect(await ids(k.staff, "?petId=2&complete=false")).toEqual([4]);
      expect(await ids(k.customer, "?petId=1")).toEqual([1]);
      expect(await ids(k.customer, "?complete=false")).toEqual([1]);
      expect(await ids(k.staff, "?petId=99")).toEqual([]);
    });

    it("answers the full order, without the owner", async () => {
      const res = await t.client.get("/store/orders/3", { key: k.customer });
      expect(res.body).toEqual(
        orderBody({ id: 3, petId: 2, quantity: 1, shipDate: t.clock.now().toISOString(), complete: true }),
      );
    });

    it.each(["complete=yes", "complete=", "petId=abc", "petId=1.5", "placedBy=x", "owner=2", "limit=0"])(
      "answers 400 validation_failed for ?%s",
      async (query) => {
        expectValidationFailed(await t.client.get(`/store/orders?${query}`, { key: k.staff }), "query");
      },
    );

    it("answers 404 to a customer asking for another key's order, and the order to its owner and staff", async () => {
      expectError(await t.client.get("/store/orders/2", { key: k.customer }), 404, "not_found");
      expect((await t.client.get("/store/orders/2", { key: k.other })).status).toBe(200);
      expect((await t.client.get("/store/orders/2", { key: k.staff })).status).toBe(200);
      expectError(await t.client.get("/store/orders/4", { key: k.customer }), 404, "not_found");
    });

    it("answers 404 for an order that does not exist and 400 for a bad id", async () => {
      expectError(await t.client.get("/store/orders/5", { key: k.staff }), 404, "not_found");
      expectError(await t.client.get("/store/orders/0", { key: k.staff }), 404, "not_found");
      expectValidationFailed(await t.client.get("/store/orders/abc", { key: k.staff }), "path.orderId");
      expectValidationFailed(await t.client.get("/store/orders/9223372036854775808", { key: k.staff }), "path.orderId");
    });
  });

  describe("PATCH /store/orders/{orderId}", () => {
    beforeEach(async () => {
      await stockedPet(t, 10);
      await placeOrder(t, k.customer, { petId: 1, quantity: 2 });
    });

    it("completes an order and sets shipDate to now when it has none", async () => {
      t.clock.advance(5_000);
      const res = await t.client.patch("/store/orders/1", { key: k.staff, body: { complete: true } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expectedOrder({ id: 1, petId: 1, quantity: 2, shipDate: "2026-11-21T12:00:05.000Z", complete: true }),
      );
      expect((await t.client.get("/store/orders/1", { key: k.customer })).body).toEqual(res.body);
      expect(await stockOf(t, 1)).toBe(8);
    });

    it("keeps a shipDate the order already had when completing it", async () => {
      await placeOrder(t, k.customer, { petId: 1, quantity: 1, shipDate: "2027-01-02T03:04:05Z" });
      const res = await t.client.patch("/store/orders/2", { key: k.staff, body: { complete: true } });
      expect(res.body).toEqual(
        expectedOrder({ id: 2, petId: 1, quantity: 1, shipDate: "2027-01-02T03:04:05.000Z", complete: true }),
      );
    });

    it("sets a shipDate (answered in UTC) and leaves the order open", async () => {
      const res = await t.client.patch("/store/orders/1", {
        key: k.staff,
        body: { shipDate: "2027-01-01T00:00:00-05:00" },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expectedOrder({ id: 1, petId: 1, quantity: 2, shipDate: "2027-01-01T05:00:00.000Z", complete: false }),
      );
    });

    it("completes with the shipDate given in the same request", async () => {
      const res = await t.client.patch("/store/orders/1", {
        key: k.staff,
        body: { complete: true, shipDate: "2027-03-04T05:06:07+01:00" },
      });
      expect(res.body).toEqual(
        expectedOrder({ id: 1, petId: 1, quantity: 2, shipDate: "2027-03-04T04:06:07.000Z", complete: true }),
      );
    });

    it("answers 409 order_completed for any change to a completed order, which stays as it was", async () => {
      const done = (await t.client.patch("/store/orders/1", { key: k.staff, body: { complete: true } })).body;
      expectError(
        await t.client.patch("/store/orders/1", { key: k.staff, body: { complete: true } }),
        409,
        "order_completed",
      );
      expectError(
        await t.client.patch("/store/orders/1", { key: k.staff, body: { shipDate: "2030-01-01T00:00:00Z" } }),
        409,
        "order_completed",
      );
      expect((await t.client.get("/store/orders/1", { key: k.staff })).body).toEqual(done);
    });

    it.each([
      ["complete: false", { complete: false }, "body.complete"],
      ["a bad shipDate", { shipDate: "soon" }, "body.shipDate"],
      ["an unknown property", { quantity: 5 }, "body"],
    ])("answers 400 validation_failed for %s and changes nothing", async (_, body, path) => {
      const before = (await t.client.get("/store/orders/1", { key: k.staff })).body;
      expect(before).toEqual(expectedOrder({ id: 1, petId: 1, quantity: 2, complete: false }));
      expect(before).not.toHaveProperty("shipDate");
      expectValidationFailed(await t.client.patch("/store/orders/1", { key: k.staff, body }), path);
      expect((await t.client.get("/store/orders/1", { key: k.staff })).body).toEqual(before);
    });

    it("answers 404 for a missing order and 403 to a customer, even for its own order", async () => {
      expectError(
        await t.client.patch("/store/orders/2", { key: k.staff, body: { complete: true } }),
        404,
        "not_found",
      );
      expectError(
        await t.client.patch("/store/orders/1", { key: k.customer, body: { complete: true } }),
        403,
        "forbidden",
      );
      expect((await t.client.get("/store/orders/1", { key: k.staff })).body.complete).toBe(false);
    });
  });

  describe("DELETE /store/orders/{orderId}", () => {
    beforeEach(async () => {
      await stockedPet(t, 10);
      await placeOrder(t, k.customer, { petId: 1, quantity: 3 }); // 1
      await placeOrder(t, k.other, { petId: 1, quantity: 2 }); // 2
    });

    it("cancels the caller's own open order: 204, empty body, units back in stock, order gone", async () => {
      expect(await stockOf(t, 1)).toBe(5);
      const res = await t.client.delete("/store/orders/1", { key: k.customer });
      expect(res.status).toBe(204);
      expect(res.body).toBe("");
      expect(await stockOf(t, 1)).toBe(8);
      expectError(await t.client.get("/store/orders/1", { key: k.customer }), 404, "not_found");
      expectError(await t.client.delete("/store/orders/1", { key: k.customer }), 404, "not_found");
    });

    it("answers 404 to a customer cancelling another key's order, which stays", async () => {
      expectError(await t.client.delete("/store/orders/2", { key: k.customer }), 404, "not_found");
      expect((await t.client.get("/store/orders/2", { key: k.other })).status).toBe(200);
      expect(await stockOf(t, 1)).toBe(5);
    });

    it("lets staff cancel any order", async () => {
      expect((await t.client.delete("/store/orders/2", { key: k.staff })).status).toBe(204);
      expect(await stockOf(t, 1)).toBe(7);
    });

    it("answers 409 order_completed for a completed order and keeps the stock as it is", async () => {
      await t.client.patch("/store/orders/1", { key: k.staff, body: { complete: true } });
      expectError(await t.client.delete("/store/orders/1", { key: k.customer }), 409, "order_completed");
      expectError(await t.client.delete("/store/orders/1", { key: k.staff }), 409, "order_completed");
      expect(await stockOf(t, 1)).toBe(5);
      expect((await t.client.get("/store/orders/1", { key: k.customer })).body.complete).toBe(true);
    });

    it("answers 404 for an order that never existed", async () => {
      expectError(await t.client.delete("/store/orders/99", { key: k.staff }), 404, "not_found");
    });
  });

  describe("pet status, end to end", () => {
    it("available → pending when an order takes the last unit → available when it is cancelled", async () => {
      await stockedPet(t, 3);
      await placeOrder(t, k.customer, { petId: 1, quantity: 1 });
      expect(await petStatus(t, 1)).toBe("available");
      await placeOrder(t, k.customer, { petId: 1, quantity: 2 });
      expect(await stockOf(t, 1)).toBe(0);
      expect(await petStatus(t, 1)).toBe("pending");
      expect((await t.client.get("/pets?ids=1", { key: k.customer })).body[0].status).toBe("pending");

      await t.client.delete("/store/orders/2", { key: k.customer });
      expect(await stockOf(t, 1)).toBe(2);
      expect(await petStatus(t, 1)).toBe("available");
    });

    it("pending → sold when the last open order completes at stock 0 → available on restock", async () => {
      await stockedPet(t, 2);
      await placeOrder(t, k.customer, { petId: 1, quantity: 1 });
      await placeOrder(t, k.other, { petId: 1, quantity: 1 });
      expect(await petStatus(t, 1)).toBe("pending");

      await t.client.patch("/store/orders/1", { key: k.staff, body: { complete: true } });
      expect(await petStatus(t, 1)).toBe("pending"); // order 2 is still open
      await t.client.patch("/store/orders/2", { key: k.staff, body: { complete: true } });
      expect(await petStatus(t, 1)).toBe("sold");

      const restock = await t.client.put("/store/inventory/1", { key: k.staff, body: { quantity: 4 } });
      expect(restock.body).toEqual({ petId: 1, quantity: 4, status: "available" });
      expect((await t.client.get("/pets?ids=1", { key: k.customer })).body[0].status).toBe("available");
      expect((await t.client.post("/store/orders", { key: k.customer, body: { petId: 1, quantity: 4 } })).status).toBe(
        201,
      );
      expect(await petStatus(t, 1)).toBe("pending");
    });

    it("stays available when a completed order leaves stock behind", async () => {
      await stockedPet(t, 5);
      await placeOrder(t, k.customer, { petId: 1, quantity: 2 });
      await t.client.patch("/store/orders/1", { key: k.staff, body: { complete: true } });
      expect(await petStatus(t, 1)).toBe("available");
      expect(await stockOf(t, 1)).toBe(3);
    });

    it("stays sold when the stock is set to 0", async () => {
      await stockedPet(t, 1);
      await placeOrder(t, k.customer, { petId: 1, quantity: 1 });
      await t.client.patch("/store/orders/1", { key: k.staff, body: { complete: true } });
      expect((await t.client.put("/store/inventory/1", { key: k.staff, body: { quantity: 0 } })).body).toEqual({
        petId: 1,
        quantity: 0,
        status: "sold",
      });
    });
  });
});
