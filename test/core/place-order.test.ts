import { describe, expect, it } from "vitest";
import { CancelOrder } from "../../core/orders/cancel-order.ts";
import { PlaceOrder } from "../../core/orders/place-order.ts";
import { alice, aWorld, givenPet, staff, statusOf } from "./world.ts";

describe("PlaceOrder", () => {
  it("reserves the stock and answers an open order placed by the caller", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const shipDate = new Date("2026-12-01T09:30:00.000Z");

    const order = await new PlaceOrder(world).execute({ petId: pet.id, quantity: 2, shipDate }, alice);

    expect(order).toEqual({ id: 1, petId: pet.id, quantity: 2, shipDate, complete: false, placedBy: alice.keyId });
    expect(await world.orders.ofId(order.id)).toEqual(order);
    expect(await world.inventory.quantityOf(pet.id)).toBe(3);
    expect(await statusOf(world, pet.id)).toBe("available");
  });

  it("refuses an unknown pet with unknown_pet", async () => {
    await expect(new PlaceOrder(aWorld()).execute({ petId: 99, quantity: 1 }, alice)).rejects.toMatchObject({
      code: "unknown_pet",
    });
  });

  it.each(["pending", "sold"] as const)("refuses a %s pet with pet_not_available and keeps its stock", async (status) => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5, status });

    await expect(new PlaceOrder(world).execute({ petId: pet.id, quantity: 1 }, alice)).rejects.toMatchObject({
      code: "pet_not_available",
    });
    expect(await world.inventory.quantityOf(pet.id)).toBe(5);
  });

  it("refuses more than the stock with insufficient_stock and places nothing", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 2 });

    await expect(new PlaceOrder(world).execute({ petId: pet.id, quantity: 3 }, alice)).rejects.toMatchObject({
      code: "insufficient_stock",
    });
    expect(await world.inventory.quantityOf(pet.id)).toBe(2);
    expect(await world.orders.list({ limit: 100 })).toEqual([]);
  });

  it("moves the pet to pending when an order takes the last unit", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 2 });

    await new PlaceOrder(world).execute({ petId: pet.id, quantity: 2 }, alice);

    expect(await world.inventory.quantityOf(pet.id)).toBe(0);
    expect(await statusOf(world, pet.id)).toBe("pending");
  });

  it("never oversells: 200 concurrent orders for 50 units place exactly 50, and cancelling them restores all", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 50 });
    const place = new PlaceOrder(world);

    const results = await Promise.allSettled(Array.from({ length: 200 }, () => place.execute({ petId: pet.id, quantity: 1 }, alice)));

    const placed = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const refusals = results.flatMap((r) => (r.status === "rejected" ? [r.reason.code] : []));
    expect(placed).toHaveLength(50);
    expect(refusals).toHaveLength(150);
    for (const code of refusals) expect(["insufficient_stock", "pet_not_available"]).toContain(code);
    expect(await world.orders.list({ limit: 100 })).toHaveLength(50);
    expect(await world.inventory.quantityOf(pet.id)).toBe(0);
    expect(await statusOf(world, pet.id)).toBe("pending");

    const cancel = new CancelOrder(world);
    await Promise.all(placed.map((order) => cancel.execute(order.id, staff)));

    expect(await world.inventory.quantityOf(pet.id)).toBe(50);
    expect(await statusOf(world, pet.id)).toBe("available");
    expect(await world.orders.list({ limit: 100 })).toEqual([]);
  });
});
