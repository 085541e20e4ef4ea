import { describe, expect, it } from "vitest";
import { CancelOrder } from "../../core/orders/cancel-order.ts";
import { PlaceOrder } from "../../core/orders/place-order.ts";
import { StockHints } from "../../core/orders/stock-hints.ts";
import { UpdateOrder } from "../../core/orders/update-order.ts";
import { reserveSeeing } from "../../core/pets/stock-writes.ts";
import { alice, aWorld, bob, givenOrder, givenPet, orderIn, staff, statusOf, stockOf } from "./world.ts";

describe("CancelOrder", () => {
  it("deletes the order and returns its units to stock", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const order = await givenOrder(world, pet.id, 2, alice);

    await new CancelOrder(world).execute(order.id, alice);

    expect(await orderIn(world, order.id)).toBeUndefined();
    expect(await stockOf(world, pet.id)).toBe(5);
  });

  it("makes the pet available again when the order had taken the last unit", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 3 });
    const order = await givenOrder(world, pet.id, 3);

    await new CancelOrder(world).execute(order.id, staff);

    expect(await statusOf(world, pet.id)).toBe("available");
    expect(await stockOf(world, pet.id)).toBe(3);
  });

  it("with its fence from this instance's hint, keeps a reservation its placing left marked before releasing it", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const hints = new StockHints();
    // A placing that died after its insert: the order owns a reservation whose mark is still on the pet.
    await reserveSeeing(world.pets, world.clock, pet.id, 7, 2, "n7", await world.pets.ofId(pet.id));
    const placed = await new PlaceOrder(world, hints).execute({ petId: pet.id, quantity: 1 }, alice);
    await world.orders.insert({ ...(await world.orders.ofId(placed.id))!, id: 7, quantity: 2, reservation: "n7" });
    const calls: string[] = [];
    const pets = new Proxy(world.pets, {
      get: (target, name, receiver) => {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls.push(String(name));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });

    await new CancelOrder({ ...world, pets }, hints).execute(7, alice);

    expect(calls, "no read: the fence is the hint's").not.toContain("ofId");
    expect(calls, "kept by the settlement's second try").toEqual([
      "applySettlement",
      "applySettlement",
      "clearSettleMark",
    ]);
    expect(await world.pets.ofId(pet.id)).toMatchObject({ stock: 4, holdCount: 1, heldUnits: 1, marks: [] });
    expect(await orderIn(world, 7)).toBeUndefined();
  });

  it("refuses a completed order with order_completed and keeps the stock", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const order = await givenOrder(world, pet.id, 2);
    await new UpdateOrder(world).execute(order.id, { complete: true }, staff);

    await expect(new CancelOrder(world).execute(order.id, staff)).rejects.toMatchObject({ code: "order_completed" });
    expect(await stockOf(world, pet.id)).toBe(3);
  });

  it("hides another customer's order: not_found, and the order stays", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const order = await givenOrder(world, pet.id, 1, alice);

    await expect(new CancelOrder(world).execute(order.id, bob)).rejects.toMatchObject({ code: "not_found" });
    expect(await orderIn(world, order.id)).toEqual(order);
    expect(await stockOf(world, pet.id)).toBe(4);
  });

  it("answers not_found for a missing order", async () => {
    await expect(new CancelOrder(aWorld()).execute(8, staff)).rejects.toMatchObject({ code: "not_found" });
  });
});
