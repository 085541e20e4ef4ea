import { describe, expect, it } from "vitest";
import { expectError, expectValidationFailed } from "../support/http-assertions.ts";
import {
  createCategory,
  createPet,
  petStatus,
  placeOrder,
  setStock,
  stockOf,
  usePetstore,
} from "../support/http-fixtures.ts";

describe("inventory", () => {
  const { t, keys: k } = usePetstore({
    given: async () => {
      await createCategory(t, "Dogs");
      await createPet(t, { name: "Rex", categoryId: 1 }); // 1 available
      await createPet(t, { name: "Tom", categoryId: 1, status: "pending" }); // 2 pending
      await createPet(t, { name: "Luna", categoryId: 1 }); // 3 available
      await setStock(t, 1, 4);
      await setStock(t, 3, 9);
    },
  });

  describe("GET /store/inventory", () => {
    it("answers one item per pet, in pet id order", async () => {
      const res = await t.client.get("/store/inventory", { key: k.customer });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { petId: 1, quantity: 4, status: "available" },
        { petId: 2, quantity: 0, status: "pending" },
        { petId: 3, quantity: 9, status: "available" },
      ]);
    });

    it("filters by status, a comma list", async () => {
      expect((await t.client.get("/store/inventory?status=pending", { key: k.customer })).body).toEqual([
        { petId: 2, quantity: 0, status: "pending" },
      ]);
      expect(
        (await t.client.get("/store/inventory?status=sold,pending", { key: k.customer })).body.map(
          (i: { petId: number }) => i.petId,
        ),
      ).toEqual([2]);
      expect((await t.client.get("/store/inventory?status=sold", { key: k.customer })).body).toEqual([]);
    });

    it("filters by status repeated, as by a comma list", async () => {
      const petIds = async (query: string) => {
        const res = await t.client.get(`/store/inventory?${query}`, { key: k.customer });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body.map((i: { petId: number }) => i.petId);
      };
      expect(await petIds("status=sold&status=pending")).toEqual([2]);
      expect(await petIds("status=available&status=pending")).toEqual([1, 2, 3]);
      expectValidationFailed(
        await t.client.get("/store/inventory?status=pending&status=gone", { key: k.customer }),
        "query.status",
      );
    });

    it.each(["status=gone", "petId=1", "limit=101", "after=x"])(
      "answers 400 validation_failed for ?%s",
      async (query) => {
        expectValidationFailed(await t.client.get(`/store/inventory?${query}`, { key: k.customer }), "query");
      },
    );

    it("drops a pet's item when the pet is deleted", async () => {
      await t.client.delete("/pets/2", { key: k.staff });
      expect(
        (await t.client.get("/store/inventory", { key: k.customer })).body.map((i: { petId: number }) => i.petId),
      ).toEqual([1, 3]);
    });
  });

  describe("GET /store/inventory/{petId}", () => {
    it("answers the pet's item", async () => {
      const res = await t.client.get("/store/inventory/3", { key: k.customer });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ petId: 3, quantity: 9, status: "available" });
    });

    it("answers 404 for a pet that does not exist and 400 for a bad id", async () => {
      expectError(await t.client.get("/store/inventory/4", { key: k.customer }), 404, "not_found");
      expectError(await t.client.get("/store/inventory/-1", { key: k.customer }), 404, "not_found");
      expectValidationFailed(await t.client.get("/store/inventory/1.5", { key: k.customer }), "path.petId");
      expectValidationFailed(
        await t.client.get("/store/inventory/99999999999999999999", { key: k.customer }),
        "path.petId",
      );
    });
  });

  describe("PUT /store/inventory/{petId}", () => {
    it("makes a pet pending because it sold out available again above 0, and it takes orders; a staff hold stays", async () => {
      const sold = await placeOrder(t, k.customer, { petId: 1, quantity: 4 });
      expect(await petStatus(t, 1)).toBe("pending");

      expect((await t.client.put("/store/inventory/1", { key: k.staff, body: { quantity: 5 } })).body).toMatchObject({
        quantity: 5,
        status: "available",
      });
      await placeOrder(t, k.customer, { petId: 1, quantity: 1 });
      expect((await t.client.delete(`/store/orders/${sold.id}`, { key: k.customer })).status).toBe(204);
      expect({ stock: await stockOf(t, 1), status: await petStatus(t, 1) }).toEqual({ stock: 8, status: "available" });

      expect((await t.client.put("/store/inventory/2", { key: k.staff, body: { quantity: 5 } })).body).toMatchObject({
        quantity: 5,
        status: "pending",
      });
      expectError(
        await t.client.post("/store/orders", { key: k.customer, body: { petId: 2, quantity: 1 } }),
        409,
        "pet_not_available",
      );
    });

    it("refuses a stock that, with the units open orders hold, would exceed 1,000,000, so a cancellation stays within it", async () => {
      const order = await placeOrder(t, k.customer, { petId: 1, quantity: 3 });

      const refused = await t.client.put("/store/inventory/1", { key: k.staff, body: { quantity: 1_000_000 } });
      expectError(refused, 409, "stock_limit_exceeded");
      expect(refused.body.message).toContain("999997");
      expect(await stockOf(t, 1)).toBe(1);
      expect((await t.client.put("/store/inventory/1", { key: k.staff, body: { quantity: 999_997 } })).status).toBe(
        200,
      );
      await t.client.delete(`/store/orders/${order.id}`, { key: k.customer });
      const item = await t.client.get("/store/inventory/1", { key: k.staff });
      expect(item.body).toMatchObject({ quantity: 1_000_000 });
      expect(
        (await t.client.put("/store/inventory/1", { key: k.staff, body: { quantity: item.body.quantity } })).status,
      ).toBe(200);
    });

    it("sets the stock and answers the item", async () => {
      const res = await t.client.put("/store/inventory/1", { key: k.staff, body: { quantity: 7 } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ petId: 1, quantity: 7, status: "available" });
      expect((await t.client.get("/store/inventory/1", { key: k.customer })).body).toEqual(res.body);
    });

    it("accepts the bounds 0 and 1,000,000", async () => {
      expect((await t.client.put("/store/inventory/1", { key: k.staff, body: { quantity: 0 } })).body).toEqual({
        petId: 1,
        quantity: 0,
        status: "available",
      });
      expect(
        (await t.client.put("/store/inventory/1", { key: k.staff, body: { quantity: 1_000_000 } })).body.quantity,
      ).toBe(1_000_000);
    });

    it("does not release a hold: a pending pet stays pending when restocked", async () => {
      expect((await t.client.put("/store/inventory/2", { key: k.staff, body: { quantity: 3 } })).body).toEqual({
        petId: 2,
        quantity: 3,
        status: "pending",
      });
    });

    it.each([
      ["-1", { quantity: -1 }],
      ["1000001", { quantity: 1_000_001 }],
      ["a fraction", { quantity: 2.5 }],
      ["a string", { quantity: "5" }],
      ["null", { quantity: null }],
    ])("answers 400 validation_failed for quantity %s and keeps the stock", async (_, body) => {
      expectValidationFailed(await t.client.put("/store/inventory/1", { key: k.staff, body }), "body.quantity");
      expect((await t.stores.pets.ofId(1))?.stock).toBe(4);
    });

    it("answers 400 for a missing quantity or an unknown property", async () => {
      expectValidationFailed(await t.client.put("/store/inventory/1", { key: k.staff, body: {} }), "body.quantity");
      expectValidationFailed(
        await t.client.put("/store/inventory/1", { key: k.staff, body: { quantity: 1, status: "sold" } }),
        "body",
      );
      expect((await t.stores.pets.ofId(1))?.stock).toBe(4);
    });

    it("answers 404 for a pet that does not exist, and creates no item", async () => {
      expectError(await t.client.put("/store/inventory/4", { key: k.staff, body: { quantity: 1 } }), 404, "not_found");
      expect((await t.stores.pets.ofId(4))?.stock).toBeUndefined();
    });

    it("answers 403 to a customer and keeps the stock", async () => {
      expectError(
        await t.client.put("/store/inventory/1", { key: k.customer, body: { quantity: 100 } }),
        403,
        "forbidden",
      );
      expect((await t.stores.pets.ofId(1))?.stock).toBe(4);
    });
  });
});
