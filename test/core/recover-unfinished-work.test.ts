import { describe, expect, it } from "vitest";
import { CancelOrder } from "../../core/orders/cancel-order.ts";
import { PlaceOrder } from "../../core/orders/place-order.ts";
import { readPetSide, settleOrder } from "../../core/orders/settle-order.ts";
import { applySettlement, reserveSeeing } from "../../core/pets/stock-writes.ts";
import { fenceOf } from "../../core/pets/pet-record.ts";
import { RecoverInterruptedWrites } from "../../core/recovery/recover-interrupted-writes.ts";
import type { Stores } from "../../core/stores.ts";
import { alice, aWorld, givenPet, type World } from "./world.ts";

const GRACE_MS = 30_000;

const recover = (world: World) => new RecoverInterruptedWrites(world, GRACE_MS).execute();

/** Counts every call recovery makes to the stores' pets and orders. */
const countingCalls = (world: World): { world: World; calls: () => number } => {
  let calls = 0;
  const counted = <T extends object>(port: T): T =>
    new Proxy(port, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        return typeof value === "function" ? (...args: unknown[]) => (calls++, value.apply(target, args)) : value;
      },
    });
  const stores: Partial<Stores> = { pets: counted(world.pets), orders: counted(world.orders) };
  return { world: { ...world, ...stores } as World, calls: () => calls };
};

describe("RecoverInterruptedWrites", () => {
  it("finishes every kind of move left in flight, and only those older than the grace period", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 20 });
    const place = new PlaceOrder(world);
    const placed = [];
    for (let i = 0; i < 4; i++)
      placed.push(await place.execute({ petId: pet.id, quantity: 1, shipDate: undefined }, alice));
    // Placings that died after reserving: no order (901, 902), and an order that died before dropping its mark (placed[0]).
    for (const orderId of [901, 902]) await reserveSeeing(world.pets, world.clock, pet.id, orderId, 2, `n${orderId}`);
    const ownMark = await reserveSeeing(world.pets, world.clock, pet.id, 903, 1, "n903");
    expect(ownMark.outcome).toBe("reserved");
    await world.orders.insert({ ...(await world.orders.ofId(placed[0]!.id))!, id: 903, reservation: "n903" });
    // A cancellation and a completion that died after their order's write, and one that died after its pet's.
    const at = world.clock.now();
    await world.orders.cancel({ orderId: placed[1]!.id, at, nonce: "a-nonce", events: [] });
    await world.orders.complete({ orderId: placed[2]!.id, at, shipDate: at, nonce: "a-nonce", events: [] });
    await world.orders.cancel({ orderId: placed[3]!.id, at, nonce: "a-nonce", events: [] });
    const fence = fenceOf(await world.pets.ofId(pet.id), placed[3]!.id);
    await applySettlement(world.pets, world.clock, "release", placed[3]!, fence);
    expect(await world.pets.ofId(pet.id)).toMatchObject({ stock: 20 - 4 - 5 + 1, holdCount: 6 });

    expect(await recover(world)).toMatchObject({
      abandonedPlacings: 0,
      undoneReservations: 0,
      settledOrders: 0,
      clearedMarks: 0,
    });
    world.clock.advance(GRACE_MS + 1);
    const report = await recover(world);

    expect(report).toMatchObject({
      abandonedPlacings: 2,
      undoneReservations: 2,
      keptReservations: 1,
      settledOrders: 2,
      clearedMarks: 1,
    });
    // The orphans' four units and the two cancelled orders' back; the completed and the open ones' stay out.
    expect(await world.pets.ofId(pet.id)).toMatchObject({
      stock: 20 - 4 - 5 + 4 + 2,
      holdCount: 2,
      heldUnits: 2,
      marks: [],
    });
    for (const orderId of [901, 902]) expect((await world.orders.ofId(orderId))?.state).toBe("abandoned");
    expect(await world.orders.settlingBefore(new Date(8.64e15), { limit: 10 })).toEqual([]);
    expect(await recover(world)).toMatchObject({
      undoneReservations: 0,
      keptReservations: 0,
      settledOrders: 0,
      clearedMarks: 0,
    });
  });

  it("a late actor that saw an order still settling cannot settle it again once another did: the fence moved", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const order = await new PlaceOrder(world).execute({ petId: pet.id, quantity: 2, shipDate: undefined }, alice);
    const { order: cancelled } = await world.orders.cancel({
      orderId: order.id,
      at: world.clock.now(),
      nonce: "a-nonce",
      events: [],
    });
    // A first recovery reads the fence and the order (settling), then stalls; a second one settles everything.
    const petSide = await readPetSide(world.pets, pet.id, order.id);
    const seen = await world.orders.ofId(order.id);
    world.clock.advance(GRACE_MS + 1);
    expect(await recover(world)).toMatchObject({ settledOrders: 1 });
    expect(await world.pets.ofId(pet.id)).toMatchObject({ stock: 5, holdCount: 0, marks: [] });

    await settleOrder(world, seen!, petSide);

    expect(await world.pets.ofId(pet.id)).toMatchObject({ stock: 5, holdCount: 0, heldUnits: 0, marks: [] });
    // Without the fence read before the order, the same late step would return the units a second time.
    const late = await applySettlement(
      world.pets,
      world.clock,
      "release",
      cancelled!,
      (await readPetSide(world.pets, pet.id, order.id)).fence,
    );
    expect(late.outcome).toBe("applied");
    expect((await world.pets.ofId(pet.id))?.stock).toBe(7);
  });

  it("costs the same with no open orders and with thousands: it reads what is unfinished, not what exists", async () => {
    const calls: number[] = [];
    for (const openOrders of [0, 3_000]) {
      const world = aWorld();
      const pet = await givenPet(world, { stock: 1_000_000 });
      const place = new PlaceOrder(world);
      for (let i = 0; i < openOrders; i++)
        await place.execute({ petId: pet.id, quantity: 1, shipDate: undefined }, alice);
      // The same unfinished work in both: one cancellation that died after its order's write.
      const victim = await place.execute({ petId: pet.id, quantity: 1, shipDate: undefined }, alice);
      await world.orders.cancel({ orderId: victim.id, at: world.clock.now(), nonce: "a-nonce", events: [] });
      world.clock.advance(GRACE_MS + 1);
      const counting = countingCalls(world);
      expect(await recover(counting.world)).toMatchObject({ settledOrders: 1 });
      calls.push(counting.calls());
      expect((await world.pets.ofId(pet.id))?.holdCount).toBe(openOrders);
    }
    expect(calls[1]).toBe(calls[0]);
  });

  it("a cancellation leaves no mark, no settling order and its units back", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 1 });
    const order = await new PlaceOrder(world).execute({ petId: pet.id, quantity: 1, shipDate: undefined }, alice);
    expect(await world.pets.ofId(pet.id)).toMatchObject({
      stock: 0,
      status: "pending",
      pendingCause: "sold-out",
      marks: [],
    });

    await new CancelOrder(world).execute(order.id, alice);

    expect(await world.pets.ofId(pet.id)).toMatchObject({
      stock: 1,
      status: "available",
      holdCount: 0,
      marks: [],
      // Moved twice: when the reservation was kept, and when the settlement was finished.
      fences: { [order.id % 32]: 2 },
    });
    expect(await world.orders.ofId(order.id)).toMatchObject({ state: "cancelled", settling: undefined });
  });
});
