import { describe, expect, it } from "vitest";
import { PlaceOrder } from "../../core/orders/place-order.ts";
import { reserve } from "../../core/pets/stock-writes.ts";
import { RecoverInterruptedWrites } from "../../core/recovery/recover-interrupted-writes.ts";
import { alice, aWorld, givenPet, stockOf } from "./world.ts";
import { holdsOf } from "../support/holds.ts";

const GRACE_MS = 30_000;

describe("RecoverInterruptedWrites settling holds", () => {
  it("asks for the held orders' states a batch at a time and settles every kind of hold, whichever batch it falls in", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 20 });
    const place = new PlaceOrder(world);
    const placed = [];
    for (let i = 0; i < 6; i++) placed.push(await place.execute({ petId: pet.id, quantity: 1, shipDate: undefined }, alice));
    // Three placings that died after reserving (holds without orders), and crashes after an order's state change.
    for (const orderId of [901, 902, 903]) expect(await reserve(world.pets, world.clock, pet.id, orderId, 2)).toBe("reserved");
    await world.orders.write(placed[1]!.id, { state: "open" }, { state: "cancelled" });
    await world.orders.write(placed[4]!.id, { state: "open" }, { state: "complete" });
    expect(await stockOf(world, pet.id)).toBe(20 - 6 - 6);

    const asked: number[][] = [];
    const statesOf = world.orders.statesOf.bind(world.orders);
    world.orders.statesOf = (ids) => (asked.push([...ids]), statesOf(ids));
    world.clock.advance(GRACE_MS + 1);
    const report = await new RecoverInterruptedWrites(world, GRACE_MS, { statesBatch: 4 }).execute();

    expect(asked.map((ids) => ids.length)).toEqual([4, 4, 1]);
    expect(report).toMatchObject({ abandonedPlacings: 3, releasedHolds: 4, consumedHolds: 1 });
    expect(await stockOf(world, pet.id)).toBe(20 - 6 - 6 + 6 + 1); // the orphans' and the cancelled order's units back
    const holds = (await holdsOf(world.pets, pet.id)).map((h) => h.orderId);
    expect(holds.sort((a, b) => a - b)).toEqual([placed[0]!.id, placed[2]!.id, placed[3]!.id, placed[5]!.id]);
    for (const orderId of [901, 902, 903]) expect((await world.orders.ofId(orderId))?.state).toBe("abandoned");
  });

  it("asks across pets: a batch of states spans the holds of several pets of a page", async () => {
    const world = aWorld();
    const pets = [await givenPet(world, { stock: 10 }), await givenPet(world, { stock: 10 })];
    const place = new PlaceOrder(world);
    for (const pet of pets) for (let i = 0; i < 3; i++) await place.execute({ petId: pet.id, quantity: 1, shipDate: undefined }, alice);
    const asked: number[][] = [];
    const statesOf = world.orders.statesOf.bind(world.orders);
    world.orders.statesOf = (ids) => (asked.push([...ids]), statesOf(ids));

    const report = await new RecoverInterruptedWrites(world, GRACE_MS, { statesBatch: 4 }).execute();

    // One store call per four holds, whichever pet holds them (on MongoDB each is a round trip).
    expect(asked.map((ids) => ids.length)).toEqual([4, 2]);
    expect(report).toMatchObject({ abandonedPlacings: 0, releasedHolds: 0, consumedHolds: 0 });
  });
});
