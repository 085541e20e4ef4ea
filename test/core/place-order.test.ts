import { describe, expect, it } from "vitest";
import { CancelOrder } from "../../core/orders/cancel-order.ts";
import { PlaceOrder } from "../../core/orders/place-order.ts";
import { StockHints } from "../../core/orders/stock-hints.ts";
import { DeletePet } from "../../core/pets/delete-pet.ts";
import type { PetRecord } from "../../core/pets/pet-record.ts";
import { alice, anyRevision, aWorld, givenPet, orderIn, staff, statusOf, stockOf, type World } from "./world.ts";

/** The world, with the pet reads (`Pets.ofId`) counted. */
const countingReads = (world: World) => {
  const reads = { count: 0 };
  const pets = new Proxy(world.pets, {
    get: (target, property) => {
      if (property === "ofId") return (id: number) => (reads.count++, target.ofId(id));
      const value = Reflect.get(target, property) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { world: { ...world, pets }, reads };
};

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: { code: string; message: string; status?: unknown }) => ({ code: error.code, message: error.message }),
  );

describe("PlaceOrder", () => {
  it("reserves the stock and answers an open order placed by the caller", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 5 });
    const shipDate = new Date("2026-12-01T09:30:00.000Z");

    const order = await new PlaceOrder(world).execute({ petId: pet.id, quantity: 2, shipDate }, alice);

    expect(order).toEqual({
      id: 1,
      petId: pet.id,
      quantity: 2,
      shipDate,
      complete: false,
      placedBy: alice.keyId,
      placedAt: world.clock.now(),
      revision: anyRevision,
    });
    expect(await orderIn(world, order.id)).toEqual(order);
    expect(await stockOf(world, pet.id)).toBe(3);
    expect(await statusOf(world, pet.id)).toBe("available");
  });

  it("refuses an unknown pet with unknown_pet", async () => {
    await expect(new PlaceOrder(aWorld()).execute({ petId: 99, quantity: 1 }, alice)).rejects.toMatchObject({
      code: "unknown_pet",
    });
  });

  it.each(["pending", "sold"] as const)(
    "refuses a %s pet with pet_not_available and keeps its stock",
    async (status) => {
      const world = aWorld();
      const pet = await givenPet(world, { stock: 5, status });

      await expect(new PlaceOrder(world).execute({ petId: pet.id, quantity: 1 }, alice)).rejects.toMatchObject({
        code: "pet_not_available",
      });
      expect(await stockOf(world, pet.id)).toBe(5);
    },
  );

  it("refuses more than the stock with insufficient_stock and places nothing", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 2 });

    await expect(new PlaceOrder(world).execute({ petId: pet.id, quantity: 3 }, alice)).rejects.toMatchObject({
      code: "insufficient_stock",
    });
    expect(await stockOf(world, pet.id)).toBe(2);
    expect(await world.orders.list({ limit: 100 })).toEqual([]);
  });

  it("moves the pet to pending when an order takes the last unit", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 2 });

    await new PlaceOrder(world).execute({ petId: pet.id, quantity: 2 }, alice);

    expect(await stockOf(world, pet.id)).toBe(0);
    expect(await statusOf(world, pet.id)).toBe("pending");
  });

  it("never oversells: 200 concurrent orders for 50 units place exactly 50, and cancelling them restores all", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 50 });
    const place = new PlaceOrder(world);

    const results = await Promise.allSettled(
      Array.from({ length: 200 }, () => place.execute({ petId: pet.id, quantity: 1 }, alice)),
    );

    const placed = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const refusals = results.flatMap((r) => (r.status === "rejected" ? [r.reason.code] : []));
    expect(placed).toHaveLength(50);
    expect(refusals).toHaveLength(150);
    for (const code of refusals) expect(["insufficient_stock", "pet_not_available"]).toContain(code);
    expect(await world.orders.list({ limit: 100 })).toHaveLength(50);
    expect(await stockOf(world, pet.id)).toBe(0);
    expect(await statusOf(world, pet.id)).toBe("pending");

    const cancel = new CancelOrder(world);
    await Promise.all(placed.map((order) => cancel.execute(order.id, staff)));

    expect(await stockOf(world, pet.id)).toBe(50);
    expect(await statusOf(world, pet.id)).toBe("available");
    expect(await world.orders.list({ limit: 100 })).toEqual([]);
  });

  describe("on an instance that saw the pet in stock (StockHints)", () => {
    it("reserves without reading the pet first, the last unit too, and reads again once none is left", async () => {
      const world = aWorld();
      const pet = await givenPet(world, { stock: 3 });
      const counted = countingReads(world);
      const place = new PlaceOrder(counted.world);

      await place.execute({ petId: pet.id, quantity: 1 }, alice);
      expect(counted.reads.count).toBe(1);
      await place.execute({ petId: pet.id, quantity: 1 }, alice);
      await place.execute({ petId: pet.id, quantity: 1 }, alice);
      expect(counted.reads.count).toBe(1);
      expect(await stockOf(world, pet.id)).toBe(0);
      expect(await statusOf(world, pet.id)).toBe("pending");

      await expect(place.execute({ petId: pet.id, quantity: 1 }, alice)).rejects.toMatchObject({
        code: "pet_not_available",
      });
      expect(counted.reads.count).toBe(2);
    });

    it("reads first when the hint shows fewer units than asked, and refuses without spending an id", async () => {
      const world = aWorld();
      const pet = await givenPet(world, { stock: 2 });
      const counted = countingReads(world);
      const place = new PlaceOrder(counted.world);
      await place.execute({ petId: pet.id, quantity: 1 }, alice);

      await expect(place.execute({ petId: pet.id, quantity: 2 }, alice)).rejects.toMatchObject({
        code: "insufficient_stock",
      });

      expect(counted.reads.count).toBe(2);
      expect((await place.execute({ petId: pet.id, quantity: 1 }, alice)).id).toBe(2);
    });

    const stale: Array<[string, (world: World, petId: number) => Promise<unknown>]> = [
      [
        "another instance took the last units",
        (world, petId) => new PlaceOrder(world).execute({ petId, quantity: 2 }, staff),
      ],
      [
        "another instance took all but one",
        (world, petId) => new PlaceOrder(world).execute({ petId, quantity: 1 }, staff),
      ],
      ["the pet was deleted", (world, petId) => new DeletePet(world).execute(petId)],
      ["the pet is being deleted", (world, petId) => world.pets.beginDeleting({ petId, since: world.clock.now() })],
      [
        "staff held the pet",
        (world, petId) =>
          world.pets.edit({
            petId,
            fields: { name: "Rex" },
            checkedStatus: "available",
            status: { to: "pending", cause: "hold" },
            events: [],
          }),
      ],
    ];

    it.each(stale)(
      "a stale hint (%s) gets the same refusal as a read would, and changes nothing",
      async (_, change) => {
        const refusals = [];
        for (const hinted of [false, true]) {
          const world = aWorld();
          const pet = await givenPet(world, { stock: 2 });
          const hints = new StockHints();
          if (hinted) hints.saw(pet.id, (await world.pets.ofId(pet.id)) as PetRecord);
          await change(world, pet.id);
          const before = { pet: await world.pets.ofId(pet.id), orders: await world.orders.list({ limit: 100 }) };

          refusals.push(await refusalOf(new PlaceOrder(world, hints).execute({ petId: pet.id, quantity: 2 }, alice)));

          expect({ pet: await world.pets.ofId(pet.id), orders: await world.orders.list({ limit: 100 }) }).toEqual(
            before,
          );
          const now = before.pet;
          const orderable =
            now !== undefined && now.lifecycle === undefined && now.status === "available" && now.stock > 0;
          expect(hints.stockOf(pet.id), "the hint now shows the pet as it is").toBe(orderable ? now.stock : undefined);
        }
        expect(refusals[0]).toBeDefined();
        expect(refusals[1]).toEqual(refusals[0]);
      },
    );

    it("a hint below the real stock costs no refusal: the order takes the units left", async () => {
      const world = aWorld();
      const pet = await givenPet(world, { stock: 5 });
      const hints = new StockHints();
      hints.saw(pet.id, { ...((await world.pets.ofId(pet.id)) as PetRecord), stock: 2 });

      await new PlaceOrder(world, hints).execute({ petId: pet.id, quantity: 2 }, alice);

      expect(await stockOf(world, pet.id)).toBe(3);
      expect(await statusOf(world, pet.id)).toBe("available");
      expect(hints.stockOf(pet.id)).toBe(3);
    });
  });

  it("recognises its own order when a driver's retry of its insert is refused as a duplicate: 201, units held once", async () => {
    const world = aWorld();
    const pet = await givenPet(world, { stock: 3 });
    // The insert applies, its answer is lost, and the driver's retry finds the id taken.
    const orders = new Proxy(world.orders, {
      get: (target, property) => {
        if (property === "insert")
          return async (...args: Parameters<typeof target.insert>) => (await target.insert(...args)) && false;
        const value = Reflect.get(target, property) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });

    const order = await new PlaceOrder({ ...world, orders }).execute({ petId: pet.id, quantity: 2 }, alice);

    expect(await orderIn(world, order.id)).toEqual(order);
    expect(await world.orders.list({ limit: 10 })).toHaveLength(1);
    expect(await world.pets.ofId(pet.id)).toMatchObject({ stock: 1, holdCount: 1, heldUnits: 2, marks: [] });
  });
});
