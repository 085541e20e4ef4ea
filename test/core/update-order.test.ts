import { describe, expect, it } from "vitest";
import { GetOrder } from "../../core/orders/get-order.ts";
import { ListOrders } from "../../core/orders/list-orders.ts";
import { UpdateOrder } from "../../core/orders/update-order.ts";
import { UpdatePet } from "../../core/pets/update-pet.ts";
import { alice, anyRevision, aWorld, bob, givenOrder, givenPet, orderIn, staff, statusOf } from "./world.ts";

describe("UpdateOrder", () => {
  it("sets the ship date to now when completing an order that has none", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const order = await givenOrder(world, pet.id);
    world.clock.set("2026-11-21T15:45:30.250Z");

    const completed = await new UpdateOrder(world).execute(order.id, { complete: true }, staff);

    expect(completed).toEqual({
      ...order,
      complete: true,
      shipDate: new Date("2026-11-21T15:45:30.250Z"),
      revision: anyRevision,
    });
    expect(await orderIn(world, order.id)).toEqual(completed);
  });

  it("keeps an existing ship date on completion, and a given one wins", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const first = await givenOrder(world, pet.id);
    const second = await givenOrder(world, pet.id);
    const update = new UpdateOrder(world);
    await update.execute(first.id, { shipDate: new Date("2026-12-01T00:00:00.000Z") }, staff);

    const kept = await update.execute(first.id, { complete: true }, staff);
    const given = await update.execute(
      second.id,
      { complete: true, shipDate: new Date("2026-12-24T00:00:00.000Z") },
      staff,
    );

    expect(kept.shipDate).toEqual(new Date("2026-12-01T00:00:00.000Z"));
    expect(given.shipDate).toEqual(new Date("2026-12-24T00:00:00.000Z"));
  });

  it("changes only the ship date of an order that is not being completed", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const order = await givenOrder(world, pet.id);

    const updated = await new UpdateOrder(world).execute(
      order.id,
      { shipDate: new Date("2026-12-01T00:00:00.000Z") },
      staff,
    );

    expect(updated).toEqual({
      ...order,
      shipDate: new Date("2026-12-01T00:00:00.000Z"),
      complete: false,
      revision: anyRevision,
    });
  });

  it("sells the pet when the last open order is completed at stock 0", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 2 });
    const first = await givenOrder(world, pet.id);
    const last = await givenOrder(world, pet.id);
    const update = new UpdateOrder(world);

    await update.execute(first.id, { complete: true }, staff);
    expect(await statusOf(world, pet.id)).toBe("pending");
    await update.execute(last.id, { complete: true }, staff);
    expect(await statusOf(world, pet.id)).toBe("sold");
  });

  it("leaves an available pet with stock left available on completion", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 2 });
    const order = await givenOrder(world, pet.id);

    await new UpdateOrder(world).execute(order.id, { complete: true }, staff);

    expect(await statusOf(world, pet.id)).toBe("available");
  });

  it("does not sell a held pet whose stock is not 0 when its last open order completes", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 2 });
    const order = await givenOrder(world, pet.id);
    await new UpdatePet(world).execute(pet.id, { name: pet.name, categoryId: pet.categoryId, status: "pending" });

    await new UpdateOrder(world).execute(order.id, { complete: true }, staff);

    expect(await statusOf(world, pet.id)).toBe("pending");
  });

  it("refuses any change to a completed order with order_completed", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const order = await givenOrder(world, pet.id);
    const update = new UpdateOrder(world);
    const completed = await update.execute(order.id, { complete: true }, staff);

    await expect(update.execute(order.id, { complete: true }, staff)).rejects.toMatchObject({
      code: "order_completed",
    });
    await expect(
      update.execute(order.id, { shipDate: new Date("2027-01-01T00:00:00.000Z") }, staff),
    ).rejects.toMatchObject({
      code: "order_completed",
    });
    expect(await orderIn(world, order.id)).toEqual(completed);
  });

  it("answers not_found for a missing order", async () => {
    await expect(new UpdateOrder(aWorld()).execute(5, { complete: true }, staff)).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("hides other customers' orders: not_found, and the order stays as it was", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const order = await givenOrder(world, pet.id, 1, alice);

    await expect(new UpdateOrder(world).execute(order.id, { shipDate: new Date() }, bob)).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(new GetOrder(world.orders).execute(order.id, bob)).rejects.toMatchObject({ code: "not_found" });
    expect(await new GetOrder(world.orders).execute(order.id, alice)).toEqual(order);
    expect(await new GetOrder(world.orders).execute(order.id, staff)).toEqual(order);
  });

  it("lists a customer's own orders only, refusing another key's; staff see all, or one key's", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const mine = await givenOrder(world, pet.id, 1, alice);
    const theirs = await givenOrder(world, pet.id, 1, bob);
    const list = new ListOrders(world.orders);

    expect((await list.execute({ limit: 20 }, alice)).items).toEqual([mine]);
    expect((await list.execute({ limit: 20, placedBy: alice.keyId }, alice)).items).toEqual([mine]);
    await expect(list.execute({ limit: 20, placedBy: bob.keyId }, alice)).rejects.toMatchObject({ code: "forbidden" });
    expect((await list.execute({ limit: 20 }, staff)).items).toEqual([mine, theirs]);
    expect((await list.execute({ limit: 20, placedBy: bob.keyId }, staff)).items).toEqual([theirs]);
  });
});
