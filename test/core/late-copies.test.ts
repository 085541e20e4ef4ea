/**
 * A write may reach the store again later (a driver's retry applied after a held copy, a connection delivering late):
 * docs/consistency.md#late-copies. Here the network's copy is the very port call, kept and sent again after the
 * state moved on; each must be refused and change nothing.
 */
import { describe, expect, it } from "vitest";
import { SetInventory } from "../../core/inventory/set-inventory.ts";
import { CancelOrder } from "../../core/orders/cancel-order.ts";
import type { OrderRecord } from "../../core/orders/order-record.ts";
import type { ShipDateChange } from "../../core/orders/orders.port.ts";
import { UpdateOrder } from "../../core/orders/update-order.ts";
import { DeletePet } from "../../core/pets/delete-pet.ts";
import type { DeletingStart, Edit, StockSetting } from "../../core/pets/pets.port.ts";
import { UpdatePet } from "../../core/pets/update-pet.ts";
import { alice, aWorld, givenOrder, givenPet, orderIn, petIn, staff, stockOf, type World } from "./world.ts";

/** Keeps every argument `method` of `port` is called with: the copies the network could deliver again. */
const copiesOf = <A>(port: object, method: string): A[] => {
  const calls: A[] = [];
  const target = port as Record<string, (...args: unknown[]) => unknown>;
  const original = target[method]!.bind(port);
  target[method] = (...args: unknown[]) => {
    calls.push(args[0] as A);
    return original(...args);
  };
  return calls;
};

const relayEverything = async (world: World) => {
  const events = await world.outbox.pending(1_000);
  await world.outbox.acknowledge(events.map((e) => e.id));
};

describe("a late copy of a write, landing after the state moved on", () => {
  it("of a stock setting made without If-Match is refused once a newer setting applied", async () => {
    const world = aWorld();
    const pet = await givenPet(world);
    const settings = copiesOf<StockSetting>(world.pets, "setStock");

    await new SetInventory(world).execute(pet.id, 10);
    await new SetInventory(world).execute(pet.id, 0);

    expect((await world.pets.setStock(settings[0]!)).applied).toBe(false);
    expect(await stockOf(world, pet.id)).toBe(0);
  });

  it("of a pet edit made without If-Match is refused once a newer edit applied", async () => {
    const world = aWorld();
    const pet = await givenPet(world);
    const edits = copiesOf<Edit>(world.pets, "edit");

    await new UpdatePet(world).execute(pet.id, { name: "Old name", categoryId: pet.categoryId });
    await new UpdatePet(world).execute(pet.id, { name: "New name", categoryId: pet.categoryId });

    expect((await world.pets.edit(edits[0]!)).applied).toBe(false);
    expect((await petIn(world, pet.id))?.name).toBe("New name");
  });

  it("of a ship-date change made without If-Match is refused once a newer change applied", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 1 });
    const order = await givenOrder(world, pet.id);
    const changes = copiesOf<ShipDateChange>(world.orders, "changeShipDate");
    const first = new Date("2026-12-01T00:00:00.000Z");
    const second = new Date("2026-12-24T00:00:00.000Z");

    await new UpdateOrder(world).execute(order.id, { shipDate: first }, alice);
    await new UpdateOrder(world).execute(order.id, { shipDate: second }, alice);

    expect((await world.orders.changeShipDate(changes[0]!)).applied).toBe(false);
    expect((await orderIn(world, order.id))?.shipDate).toEqual(second);
  });

  it("a ship-date change without If-Match that finds the order changed since its read goes on top of it", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 1 });
    const order = await givenOrder(world, pet.id);
    const other = new Date("2026-12-01T00:00:00.000Z");
    const mine = new Date("2026-12-24T00:00:00.000Z");
    const orders = world.orders as unknown as Record<string, (change: ShipDateChange) => Promise<unknown>>;
    const original = orders.changeShipDate!.bind(world.orders);
    let raced = false;
    orders.changeShipDate = async (change) => {
      if (!raced) {
        raced = true;
        await original({ orderId: order.id, shipDate: other, events: [] });
      }
      return original(change);
    };

    expect((await new UpdateOrder(world).execute(order.id, { shipDate: mine }, alice)).shipDate).toEqual(mine);
    expect((await orderIn(world, order.id))?.shipDate).toEqual(mine);
  });

  it("of a pet deletion: one refused for open orders writes nothing, so nothing lands once they closed", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 1 });
    const order = await givenOrder(world, pet.id);
    const deletions = copiesOf<DeletingStart>(world.pets, "beginDeleting");

    await expect(new DeletePet(world).execute(pet.id)).rejects.toMatchObject({ code: "pet_has_open_orders" });
    expect(deletions).toEqual([]);

    await new CancelOrder(world).execute(order.id, staff);
    expect(await petIn(world, pet.id)).toBeDefined();
  });

  it("of a pet deletion whose request gave up is refused once anything wrote the pet since its read", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 1 });
    const pets = world.pets as unknown as Record<string, (deleting: DeletingStart) => Promise<unknown>>;
    const held: DeletingStart[] = [];
    const original = pets.beginDeleting!.bind(world.pets);
    // The connection holds the write, and the request answers 503.
    pets.beginDeleting = async (deleting) => {
      held.push(deleting);
      throw new Error("connection lost");
    };
    await expect(new DeletePet(world).execute(pet.id)).rejects.toThrow("connection lost");
    pets.beginDeleting = original;
    await new SetInventory(world).execute(pet.id, 3);

    expect(((await original(held[0]!)) as { applied: boolean }).applied).toBe(false);
    expect(await petIn(world, pet.id)).toBeDefined();
  });

  it("of an order's insert is refused after the order was cancelled, settled, relayed and removed", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 2 });
    const inserts = copiesOf<OrderRecord>(world.orders, "insert");
    const order = await givenOrder(world, pet.id);
    await new CancelOrder(world).execute(order.id, alice);
    await relayEverything(world);
    expect(await world.orders.ofId(order.id)).toBeUndefined();

    expect(await world.orders.insert(inserts[0]!)).toBe(false);
    expect(await world.orders.ofId(order.id)).toBeUndefined();
    expect(await world.pets.ofId(pet.id)).toMatchObject({ stock: 2, holdCount: 0, heldUnits: 0 });
  });

  it("of an order's insert is refused after its pet was deleted with it", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 2 });
    const inserts = copiesOf<OrderRecord>(world.orders, "insert");
    const order = await givenOrder(world, pet.id);
    await new UpdateOrder(world).execute(order.id, { complete: true }, staff);
    await new DeletePet(world).execute(pet.id);

    expect(await world.orders.insert(inserts[0]!)).toBe(false);
    expect(await world.orders.ofId(order.id)).toBeUndefined();
  });
});
