import { describe, expect, it } from "vitest";
import { CancelOrder } from "../../core/orders/cancel-order.ts";
import { PlaceOrder } from "../../core/orders/place-order.ts";
import type { Pets } from "../../core/pets/pets.port.ts";
import { RecoverInterruptedWrites } from "../../core/recovery/recover-interrupted-writes.ts";
import { alice, aWorld, givenPet, staff, type World } from "./world.ts";

const GRACE_MS = 30_000;

/** Every pending event into the event log, acknowledged: what the relay does (a drained cancelled order goes). */
const relayAll = async (world: World): Promise<void> => {
  for (let events = await world.outbox.pending(100); events.length > 0; events = await world.outbox.pending(100)) {
    await world.eventLog.append(events);
    await world.outbox.acknowledge(events.map((e) => e.id));
  }
};

/** The pets, with one named call held back until `resume()`: an actor stalled there for as long as the test likes. */
const stalledAt = (pets: Pets, call: keyof Pets) => {
  let reached!: () => void;
  let resume!: () => void;
  const reachedSignal = new Promise<void>((resolve) => (reached = resolve));
  const resumed = new Promise<void>((resolve) => (resume = resolve));
  const stalled = new Proxy(pets, {
    get: (target, property) => {
      const value = Reflect.get(target, property) as unknown;
      if (typeof value !== "function") return value;
      if (property !== call) return value.bind(target);
      return async (...args: unknown[]) => {
        reached();
        await resumed;
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
  return { pets: stalled, reached: reachedSignal, resume };
};

describe("an actor stalled past the grace period, then resuming", () => {
  it("a placer stalled before dropping its reserve mark, its order cancelled and relayed meanwhile: units come back once", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 3 });
    const stall = stalledAt(world.pets, "postReservation");
    const placing = new PlaceOrder({ ...world, pets: stall.pets }).execute({ petId: pet.id, quantity: 2 }, alice);
    await stall.reached;
    // The order is listed: staff cancel it, the relay takes its events and the tombstone goes.
    const [order] = await world.orders.list({ limit: 10 });
    await new CancelOrder(world).execute(order!.id, staff);
    await relayAll(world);
    world.clock.advance(GRACE_MS + 1);
    await new RecoverInterruptedWrites(world, GRACE_MS).execute();
    stall.resume();
    await placing.catch(() => undefined);
    await new RecoverInterruptedWrites(world, GRACE_MS).execute();

    expect(await world.pets.ofId(pet.id)).toMatchObject({ stock: 3, holdCount: 0, heldUnits: 0, marks: [] });
  });

  it("a keyed retry after its order was placed, cancelled and relayed burns the noted id: no id is reused", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 3 });
    // The first attempt places order 1 and dies before its answer is recorded; the order is cancelled and relayed.
    const first = await new PlaceOrder(world).execute({ petId: pet.id, quantity: 1 }, alice, {
      previous: undefined,
      note: async () => {},
      confirm: async () => true,
    });
    await new CancelOrder(world).execute(first.id, staff);
    await relayAll(world);
    expect(await world.orders.ofId(first.id)).toBeUndefined();

    const retry = await new PlaceOrder(world).execute({ petId: pet.id, quantity: 1 }, alice, {
      previous: { orderId: first.id },
      note: async () => {},
      confirm: async () => true,
    });
    await relayAll(world);

    expect(retry.id).not.toBe(first.id);
    const placedEvents = (await world.eventLog.readAfter(0, 100)).events.filter((e) => e.type === "order.placed");
    expect(placedEvents.map((e) => (e.data as { id: number }).id)).toEqual([first.id, retry.id]);
    expect(await world.pets.ofId(pet.id)).toMatchObject({ stock: 2, holdCount: 1, heldUnits: 1, marks: [] });
  });
});
