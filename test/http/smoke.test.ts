import { describe, expect, it } from "vitest";
import { expectedCategory, expectedOrder, expectedPet } from "../support/bodies.ts";
import { usePetstore } from "../support/http-fixtures.ts";

describe("a walk through the store", () => {
  const { t } = usePetstore({ keys: false });

  it("creates a category and a pet, stocks it, and places, cancels and completes orders", async () => {
    const staff = await t.newKey("staff");
    const customer = await t.newKey("customer");
    const category = await t.client.post("/categories", { key: staff, body: { name: " Dogs ", description: "Good" } });
    expect(category.status).toBe(201);
    expect(category.body).toEqual(expectedCategory({ id: 1, name: "Dogs", description: "Good" }));
    expect(category.headers.get("location")).toBe("/categories/1");

    const pet = await t.client.post("/pets", { key: staff, body: { name: "Rex", categoryId: 1 } });
    expect(pet.status).toBe(201);
    expect(pet.body).toEqual(expectedPet({ id: 1, name: "Rex", categoryId: 1, status: "available" }));

    const stock = await t.client.put("/store/inventory/1", { key: staff, body: { quantity: 2 } });
    expect(stock.body).toEqual({ petId: 1, quantity: 2, status: "available" });

    const first = await t.client.post("/store/orders", { key: customer, body: { petId: 1, quantity: 1 } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual(expectedOrder({ id: 1, petId: 1, quantity: 1, complete: false }));
    const second = await t.client.post("/store/orders", { key: customer, body: { petId: 1, quantity: 1 } });
    expect(second.status).toBe(201);
    expect((await t.client.get("/pets?ids=1", { key: customer })).body[0].status).toBe("pending");

    expect((await t.client.delete("/store/orders/2", { key: customer })).status).toBe(204);
    expect((await t.client.get("/store/inventory/1", { key: customer })).body).toEqual({
      petId: 1,
      quantity: 1,
      status: "available",
    });

    const done = await t.client.patch("/store/orders/1", { key: staff, body: { complete: true } });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: 1, complete: true, shipDate: t.clock.now().toISOString() });
  });
});
