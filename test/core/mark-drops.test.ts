import { describe, expect, it } from "vitest";
import { CancelOrder } from "../../core/orders/cancel-order.ts";
import { FlushMarkDrops } from "../../core/orders/flush-mark-drops.ts";
import { MARK_DROP_WAIT_MS, MarkDrops } from "../../core/orders/mark-drops.ts";
import { PlaceOrder } from "../../core/orders/place-order.ts";
import { StockHints } from "../../core/orders/stock-hints.ts";
import type { Pets } from "../../core/pets/pets.port.ts";
import { alice, aWorld, givenPet, staff, type World } from "./world.ts";

const marksOf = async (world: World, petId: number) =>
  (await world.pets.ofId(petId))!.marks.map((m) => `${m.kind} ${m.orderId}`);

/** The use cases of one instance sharing its hints and its drops, as bootstrap binds them. */
const anInstance = (world: World) => {
  const [hints, drops] = [new StockHints(), new MarkDrops()];
  return {
    drops,
    place: new PlaceOrder(world, hints, drops),
    cancel: new CancelOrder(world, hints, drops),
    flush: new FlushMarkDrops(world, hints, drops),
  };
};

describe("MarkDrops", () => {
  const at = new Date("2026-11-21T12:00:00.000Z");
  const later = (ms: number) => new Date(at.getTime() + ms);

  it("keeps an instance's drops per pet: taken whole for a write to take along, given back, due once one waited", () => {
    const drops = new MarkDrops();
    drops.defer(1, { orderId: 10, kind: "reserve", nonce: "n10" }, at);
    drops.defer(1, { orderId: 11, kind: "settle" }, later(500));
    drops.defer(2, { orderId: 12, kind: "settle" }, later(900));

    expect(drops.due(later(999), 1_000)).toEqual([]);
    expect(drops.take(1)).toEqual([
      { orderId: 10, kind: "reserve", nonce: "n10" },
      { orderId: 11, kind: "settle" },
    ]);
    expect(drops.take(1)).toEqual([]);
    drops.giveBack(1, [{ orderId: 11, kind: "settle" }], later(1_000));
    expect(drops.size).toBe(2);
    // Given back, a drop waits anew; the pet 2's has waited long enough.
    expect(drops.due(later(1_900), 1_000)).toEqual([{ petId: 2, drops: [{ orderId: 12, kind: "settle" }] }]);
    expect(drops.takeOf(1, 11, "reserve")).toBeUndefined();
    expect(drops.takeOf(1, 11, "settle")).toEqual({ orderId: 11, kind: "settle" });
    expect(drops.size).toBe(0);
  });

  it("refuses past its capacity, so the caller drops the mark at once", () => {
    const drops = new MarkDrops();
    for (let i = 0; i < 10_000; i++) expect(drops.defer(i, { orderId: i, kind: "settle" }, at)).toBe(true);
    expect(drops.defer(1, { orderId: 1, kind: "settle" }, at)).toBe(false);
    expect(drops.size).toBe(10_000);
  });
});

describe("mark drops that ride (docs/consistency.md#mark-drops-that-ride)", () => {
  it("an order's post waits; the next order of the pet on the instance drops it in its own reservation", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const { place, drops } = anInstance(world);

    const first = await place.execute({ petId: pet.id, quantity: 1 }, alice);
    expect(await marksOf(world, pet.id)).toEqual([`reserve ${first.id}`]);
    const second = await place.execute({ petId: pet.id, quantity: 2 }, alice);

    expect(await marksOf(world, pet.id)).toEqual([`reserve ${second.id}`]);
    expect(drops.size).toBe(1);
    expect(await world.pets.ofId(pet.id)).toMatchObject({ stock: 2, holdCount: 2, heldUnits: 3 });
  });

  it("a reservation whose drop another actor made first is tried again without it, and the drop is not kept", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const { place, drops } = anInstance(world);
    const first = await place.execute({ petId: pet.id, quantity: 1 }, alice);
    // Recovery (or another instance's settlement) posts the reservation meanwhile.
    await world.pets.postReservation({
      petId: pet.id,
      orderId: first.id,
      nonce: (await world.orders.ofId(first.id))!.reservation!,
    });
    const calls = countingReserves(world);

    const second = await place.execute({ petId: pet.id, quantity: 1 }, alice);

    expect(calls).toEqual([1, 0]);
    expect(await marksOf(world, pet.id)).toEqual([`reserve ${second.id}`]);
    expect(drops.take(pet.id)).toEqual([{ orderId: second.id, kind: "reserve", nonce: expect.any(String) }]);
  });

  it("a refused order gives the drops it carried back; the flush drops them after the wait, one write per pet, and at a stop all", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 2 });
    const other = await givenPet(world, { stock: 2 });
    const { place, flush, drops } = anInstance(world);
    const first = await place.execute({ petId: pet.id, quantity: 1 }, alice);
    await place.execute({ petId: other.id, quantity: 1 }, alice);
    await expect(place.execute({ petId: pet.id, quantity: 2 }, alice)).rejects.toMatchObject({
      code: "insufficient_stock",
    });
    expect(drops.size).toBe(2);

    expect(await flush.execute()).toBe(0);
    world.clock.advance(MARK_DROP_WAIT_MS);
    expect(await flush.execute()).toBe(2);
    expect(await marksOf(world, pet.id)).toEqual([]);
    expect(await marksOf(world, other.id)).toEqual([]);
    expect(await world.orders.ofId(first.id)).toMatchObject({ state: "open" });

    await place.execute({ petId: pet.id, quantity: 1 }, alice);
    expect(await flush.execute(true)).toBe(1);
    expect(drops.size).toBe(0);
  });

  it("a flush failing on the store keeps its drops for the next one", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 2 });
    const [hints, drops] = [new StockHints(), new MarkDrops()];
    await new PlaceOrder(world, hints, drops).execute({ petId: pet.id, quantity: 1 }, alice);
    const down: Pets = { ...world.pets, dropMarks: () => Promise.reject(new Error("store down")) } as Pets;

    await expect(new FlushMarkDrops({ ...world, pets: down }, hints, drops).execute(true)).rejects.toThrow(
      "store down",
    );
    expect(drops.size).toBe(1);
    expect(await new FlushMarkDrops(world, hints, drops).execute(true)).toBe(1);
    expect(await marksOf(world, pet.id)).toEqual([]);
  });

  it("a cancellation of an order whose post still waits keeps it in the settlement's write, then leaves its settle mark to drop later", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 3 });
    const { place, cancel, flush, drops } = anInstance(world);
    const order = await place.execute({ petId: pet.id, quantity: 2 }, alice);
    const writes: string[] = [];
    for (const name of ["postReservation", "applySettlement", "dropMarks", "clearSettleMark"] as const) {
      const write = world.pets[name].bind(world.pets) as (arg: never) => ReturnType<Pets[typeof name]>;
      world.pets[name] = ((arg: never) => (writes.push(name), write(arg))) as never;
    }

    await cancel.execute(order.id, staff);

    expect(writes, "one pet write: the post rides on the settlement").toEqual(["applySettlement"]);
    expect(await marksOf(world, pet.id)).toEqual([`settle ${order.id}`]);
    expect(drops.size).toBe(1);
    expect(await world.pets.ofId(pet.id)).toMatchObject({ stock: 3, holdCount: 0, heldUnits: 0 });
    await flush.execute(true);
    expect(await marksOf(world, pet.id)).toEqual([]);
  });
});

/** Per reservation the pet port is asked for, how many drops it carried. */
const countingReserves = (world: World): number[] => {
  const calls: number[] = [];
  const reserve = world.pets.reserve.bind(world.pets);
  world.pets.reserve = (r) => {
    calls.push(r.drops?.length ?? 0);
    return reserve(r);
  };
  return calls;
};
