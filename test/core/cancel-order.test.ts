import { describe, expect, it } from "vitest";
import { CancelOrder } from "../../core/orders/cancel-order.ts";
import { UpdateOrder } from "../../core/orders/update-order.ts";
import { alice, aWorld, bob, givenOrder, givenPet, staff, statusOf } from "./world.ts";

describe("CancelOrder", () => {
  it("deletes the order and returns its units to stock", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const order = await givenOrder(world, pet.id, 2, alice);

    await new CancelOrder(world).execute(order.id, alice);

    expect(await world.orders.ofId(order.id)).toBeUndefined();
    expect(await world.inventory.quantityOf(pet.id)).toBe(5);
  });

  it("makes the pet available again when the order had taken the last unit", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 3 });
    const order = await givenOrder(world, pet.id, 3);

    await new CancelOrder(world).execute(order.id, staff);

    expect(await statusOf(world, pet.id)).toBe("available");
    expect(await world.inventory.quantityOf(pet.id)).toBe(3);
  });

  it("refuses a completed order with order_completed and keeps the stock", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const order = await givenOrder(world, pet.id, 2);
    await new UpdateOrder(world).execute(order.id, { complete: true }, staff);

    await expect(new CancelOrder(world).execute(order.id, staff)).rejects.toMatchObject({ code: "order_completed" });
    expect(await world.inventory.quantityOf(pet.id)).toBe(3);
  });

  it("hides another customer's order: not_found, and the order stays", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const order = await givenOrder(world, pet.id, 1, alice);

    await expect(new CancelOrder(world).execute(order.id, bob)).rejects.toMatchObject({ code: "not_found" });
    expect(await world.orders.ofId(order.id)).toEqual(order);
    expect(await world.inventory.quantityOf(pet.id)).toBe(4);
  });

  it("answers not_found for a missing order", async () => {
    await expect(new CancelOrder(aWorld()).execute(8, staff)).rejects.toMatchObject({ code: "not_found" });
  });
});
