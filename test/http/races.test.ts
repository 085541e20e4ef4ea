import { describe, expect, it } from "vitest";
import { countStatuses } from "../support/http-assertions.ts";
import { petStatus, stockedPet, stockOf, usePetstore } from "../support/http-fixtures.ts";

/** Races through the whole stack; the http-on-mongo project runs them against MongoDB as well. */
describe("races", () => {
  const { t, keys } = usePetstore();

  it("200 parallel orders for 50 units admit exactly 50; cancelling them all restores 50 and `available`", async () => {
    const pet = await stockedPet(t, 50);
    const orders = await Promise.all(
      Array.from({ length: 200 }, () =>
        t.client.post("/store/orders", { key: keys.customer, body: { petId: pet.id, quantity: 1 } }),
      ),
    );
    expect(countStatuses(orders)).toEqual({ 201: 50, 409: 150 });
    expect(await stockOf(t, pet.id)).toBe(0);
    expect(await petStatus(t, pet.id)).toBe("pending");

    const placed = orders.filter((r) => r.status === 201).map((r) => r.body.id as number);
    expect(new Set(placed).size).toBe(50);
    const cancelled = await Promise.all(
      placed.map((id) => t.client.delete(`/store/orders/${id}`, { key: keys.customer })),
    );
    expect(countStatuses(cancelled)).toEqual({ 204: 50 });
    expect(await stockOf(t, pet.id)).toBe(50);
    expect(await petStatus(t, pet.id)).toBe("available");
  });

  it("parallel creates get unique ids", async () => {
    const category = await t.client.post("/categories", { key: keys.staff, body: { name: "Dogs" } });
    const pets = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        t.client.post("/pets", { key: keys.staff, body: { name: `Pup ${i}`, categoryId: category.body.id } }),
      ),
    );
    expect(countStatuses(pets)).toEqual({ 201: 50 });
    expect(new Set(pets.map((r) => r.body.id)).size).toBe(50);
  });

  it("a category name raced from many requests is created once", async () => {
    const raced = await Promise.all(
      ["Cats", "cats", "CATS", "Cats", "cAts", "Cats ", " cats", "CaTs"].map((name) =>
        t.client.post("/categories", { key: keys.staff, body: { name } }),
      ),
    );
    expect(countStatuses(raced)).toEqual({ 201: 1, 409: 7 });
    expect(raced.filter((r) => r.status === 409).every((r) => r.body.code === "category_name_taken")).toBe(true);
    expect((await t.client.get("/categories", { key: keys.staff })).body).toHaveLength(1);
  });

  it("racing completion and cancellation of one order: exactly one wins", async () => {
    const pet = await stockedPet(t, 3);
    const order = await t.client.post("/store/orders", { key: keys.customer, body: { petId: pet.id, quantity: 2 } });
    const [complete, cancel] = await Promise.all([
      t.client.patch(`/store/orders/${order.body.id}`, { key: keys.staff, body: { complete: true } }),
      t.client.delete(`/store/orders/${order.body.id}`, { key: keys.customer }),
    ]);
    // Completed first: the cancellation meets a completed order. Cancelled first: the order is gone.
    expect([
      [200, 409],
      [404, 204],
    ]).toContainEqual([complete.status, cancel.status]);
    expect(await stockOf(t, pet.id)).toBe(complete.status === 200 ? 1 : 3);
  });
});
