import { describe, expect, it } from "vitest";
import type { Actor } from "../../core/access/permissions.ts";
import { CreateCategory } from "../../core/categories/create-category.ts";
import { DeleteCategory } from "../../core/categories/delete-category.ts";
import { SetInventory } from "../../core/inventory/set-inventory.ts";
import { CancelOrder } from "../../core/orders/cancel-order.ts";
import { PlaceOrder } from "../../core/orders/place-order.ts";
import { StockHints } from "../../core/orders/stock-hints.ts";
import { UpdateOrder } from "../../core/orders/update-order.ts";
import { CreatePet } from "../../core/pets/create-pet.ts";
import { DeletePet } from "../../core/pets/delete-pet.ts";
import { UpdatePet } from "../../core/pets/update-pet.ts";
import { RecoverInterruptedWrites } from "../../core/recovery/recover-interrupted-writes.ts";
import type { Stores } from "../../core/stores.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { faults, faultyStores, type CallPlan, type Fault } from "./faulty-stores.ts";
import type { ContractHarness } from "./harness.ts";

const GRACE_MS = 30_000;
const staff: Actor = { keyId: 1, role: "staff" };
const alice: Actor = { keyId: 2, role: "customer" };
const everything = { limit: 100 };
const farFuture = new Date("2100-01-01T00:00:00.000Z");

/** `hints`: what this instance saw of pets' stock (by default nothing: each placing reads its pet first). */
const useCasesOn = (stores: Stores, clock: ManualClock, hints = new StockHints()) => {
  const ports = { ...stores, clock };
  return {
    createCategory: new CreateCategory(ports),
    createPet: new CreatePet(ports),
    updatePet: new UpdatePet(ports),
    deletePet: new DeletePet(ports),
    deleteCategory: new DeleteCategory(ports),
    setInventory: new SetInventory(ports),
    placeOrder: new PlaceOrder(ports, hints),
    updateOrder: new UpdateOrder(ports, hints),
    cancelOrder: new CancelOrder(ports, hints),
    recover: new RecoverInterruptedWrites(ports, GRACE_MS),
    recoverLate: new RecoverInterruptedWrites(
      { ...ports, clock: { now: () => new Date(clock.now().getTime() + GRACE_MS + 1_000) } },
      GRACE_MS,
    ),
  };
};
type UseCasesOn = ReturnType<typeof useCasesOn>;

/** Recovery on another instance whose clock is past the grace period of everything written so far. */
const recoverPastGrace = (uc: UseCasesOn) => uc.recoverLate.execute();

/**
 * Categories 1 Dogs, 2 Cats, 3 Empty. Pets 1 Rex (Dogs, 3 in stock), 2 Bella (Dogs, pending: order 1 took its
 * last unit), 3 Max (Cats, 1 in stock, a completed order 2), 4 Kiwi (Cats, no stock, no orders).
 */
const given = async (uc: UseCasesOn): Promise<void> => {
  for (const name of ["Dogs", "Cats", "Empty"]) await uc.createCategory.execute({ name });
  for (const [name, categoryId, stock] of [
    ["Rex", 1, 3],
    ["Bella", 1, 1],
    ["Max", 2, 2],
    ["Kiwi", 2, 0],
  ] as const) {
    const pet = await uc.createPet.execute({ name, categoryId });
    if (stock > 0) await uc.setInventory.execute(pet.id, stock);
  }
  await uc.placeOrder.execute({ petId: 2, quantity: 1 }, alice);
  const completed = await uc.placeOrder.execute({ petId: 3, quantity: 1 }, alice);
  await uc.updateOrder.execute(completed.id, { complete: true }, staff);
};

/** What clients can see, ids of pets and orders aside (a crashed run may have spent some). */
const visibleState = async (s: Stores) => {
  const categories = (await s.categories.list(everything)).map((c) => `${c.id}:${c.name}`);
  const pets = await s.pets.list(everything);
  const orders = await s.orders.list(everything);
  return {
    categories,
    pets: pets
      .map((p) => ({
        name: p.name,
        categoryId: p.categoryId,
        status: p.status,
        stock: p.stock,
        orders: orders
          .filter((o) => o.petId === p.id)
          .map((o) => `${o.quantity}:${o.state}:${o.placedBy}`)
          .sort(),
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    ordersOfMissingPets: orders.filter((o) => !pets.some((p) => p.id === o.petId)).length,
  };
};
type VisibleState = Awaited<ReturnType<typeof visibleState>>;

/** Stock given per pet, as the state shows it: current stock plus the units of its existing orders. */
const stockGiven = (state: VisibleState): Record<string, number> =>
  Object.fromEntries(
    state.pets.map((p) => [p.name, p.stock + p.orders.reduce((sum, o) => sum + Number(o.split(":")[0]), 0)]),
  );

/** PRODUCT.md §5 and docs/consistency.md's invariants, checked on the stored documents once recovery has run. */
const expectInvariants = async (s: Stores, context: string): Promise<void> => {
  expect(await s.pets.provisional(everything), `${context}: no provisional pet left`).toEqual([]);
  expect(await s.categories.deletingBefore(farFuture, everything), `${context}: no category left deleting`).toEqual([]);
  const categories = await s.categories.list(everything);
  const pets = await s.pets.list(everything);
  const orders = await s.orders.list(everything);
  for (const order of orders)
    expect(
      pets.some((p) => p.id === order.petId),
      `${context}: order ${order.id} names a deleted pet`,
    ).toBe(true);
  for (const pet of pets) {
    expect(
      categories.some((c) => c.id === pet.categoryId),
      `${context}: pet ${pet.name} names a deleted category`,
    ).toBe(true);
    const open = orders.filter((o) => o.petId === pet.id && o.state === "open");
    expect(
      { holdCount: pet.holdCount, heldUnits: pet.heldUnits },
      `${context}: the units held on ${pet.name} are those of its open orders`,
    ).toEqual({ holdCount: open.length, heldUnits: open.reduce((sum, o) => sum + o.quantity, 0) });
    expect(pet.stock, `${context}: stock of ${pet.name}`).toBeGreaterThanOrEqual(0);
    if (pet.status === "sold")
      expect({ stock: pet.stock, open: open.length }, `${context}: sold ${pet.name}`).toEqual({ stock: 0, open: 0 });
    if (pet.pendingCause === "sold-out") expect(pet.stock, `${context}: ${pet.name} sold out`).toBe(0);
    expect(pet.pendingCause !== undefined, `${context}: ${pet.name} has a pending cause exactly while pending`).toBe(
      pet.status === "pending",
    );
  }
  expect(await s.pets.withMarks(everything), `${context}: no move left in flight`).toEqual([]);
  expect(await s.orders.settlingBefore(farFuture, everything), `${context}: no order left settling`).toEqual([]);
};

interface Scenario {
  name: string;
  /**
   * The instance last saw this pet orderable with this stock (rightly or not), and these fences (by default its own):
   * a placing then reserves without reading, a cancellation or completion takes its fence without reading.
   */
  seen?: { petId: number; stock: number; fences?: Record<number, number> };
  run(uc: UseCasesOn): Promise<unknown>;
}

const scenarios: Scenario[] = [
  { name: "place an order (units left)", run: (uc) => uc.placeOrder.execute({ petId: 1, quantity: 1 }, alice) },
  { name: "place an order for the last units", run: (uc) => uc.placeOrder.execute({ petId: 1, quantity: 3 }, alice) },
  {
    name: "place an order refused for want of stock",
    run: (uc) => uc.placeOrder.execute({ petId: 1, quantity: 4 }, alice),
  },
  {
    name: "place an order (units left), the instance saw them",
    seen: { petId: 1, stock: 3 },
    run: (uc) => uc.placeOrder.execute({ petId: 1, quantity: 1 }, alice),
  },
  {
    name: "place an order for the last units, the instance saw them",
    seen: { petId: 1, stock: 3 },
    run: (uc) => uc.placeOrder.execute({ petId: 1, quantity: 3 }, alice),
  },
  {
    name: "place an order for the last units, the instance saw more",
    seen: { petId: 1, stock: 5 },
    run: (uc) => uc.placeOrder.execute({ petId: 1, quantity: 3 }, alice),
  },
  {
    name: "place an order refused for want of stock, the instance saw more",
    seen: { petId: 1, stock: 5 },
    run: (uc) => uc.placeOrder.execute({ petId: 1, quantity: 4 }, alice),
  },
  {
    name: "place an order refused on a held pet, the instance saw it in stock",
    seen: { petId: 2, stock: 1 },
    run: (uc) => uc.placeOrder.execute({ petId: 2, quantity: 1 }, alice),
  },
  { name: "cancel an order (restocks a pending pet)", run: (uc) => uc.cancelOrder.execute(1, alice) },
  {
    name: "complete an order (sells a pending pet)",
    run: (uc) => uc.updateOrder.execute(1, { complete: true }, staff),
  },
  {
    name: "cancel an order, the instance saw its pet (in stock, wrongly)",
    seen: { petId: 2, stock: 1 },
    run: (uc) => uc.cancelOrder.execute(1, alice),
  },
  {
    name: "cancel an order, the instance saw its pet before its fence moved",
    seen: { petId: 2, stock: 1, fences: {} },
    run: (uc) => uc.cancelOrder.execute(1, alice),
  },
  {
    name: "complete an order, the instance saw its pet (in stock, wrongly)",
    seen: { petId: 2, stock: 1 },
    run: (uc) => uc.updateOrder.execute(1, { complete: true }, staff),
  },
  { name: "delete a pet with a completed order", run: (uc) => uc.deletePet.execute(3) },
  { name: "delete a pet refused for its open order", run: (uc) => uc.deletePet.execute(2) },
  { name: "delete an empty category", run: (uc) => uc.deleteCategory.execute(3) },
  { name: "delete a category refused for its pets", run: (uc) => uc.deleteCategory.execute(2) },
  { name: "set the inventory", run: (uc) => uc.setInventory.execute(1, 7) },
  { name: "restock a pet that sold out", run: (uc) => uc.setInventory.execute(2, 5) },
  { name: "create a pet", run: (uc) => uc.createPet.execute({ name: "Nemo", categoryId: 3 }) },
  { name: "move a pet to another category", run: (uc) => uc.updatePet.execute(4, { name: "Kiwi", categoryId: 3 }) },
  {
    name: "edit a pet (hold it)",
    run: (uc) => uc.updatePet.execute(1, { name: "Rex", categoryId: 1, status: "pending" }),
  },
];

/** Competing requests, each paired with the operation it races at every store call. */
const races: Array<{ scenario: string; competitor: string; run(uc: UseCasesOn): Promise<unknown> }> = [
  {
    scenario: "place an order for the last units",
    competitor: "delete that pet",
    run: (uc) => uc.deletePet.execute(1),
  },
  {
    scenario: "place an order for the last units",
    competitor: "another order for them",
    run: (uc) => uc.placeOrder.execute({ petId: 1, quantity: 2 }, staff),
  },
  {
    scenario: "place an order for the last units, the instance saw them",
    competitor: "delete that pet",
    run: (uc) => uc.deletePet.execute(1),
  },
  {
    scenario: "place an order for the last units, the instance saw them",
    competitor: "another order for them",
    run: (uc) => uc.placeOrder.execute({ petId: 1, quantity: 2 }, staff),
  },
  {
    scenario: "place an order for the last units, the instance saw more",
    competitor: "an order for one of them",
    run: (uc) => uc.placeOrder.execute({ petId: 1, quantity: 1 }, staff),
  },
  {
    scenario: "place an order (units left), the instance saw them",
    competitor: "staff holding the pet",
    run: (uc) => uc.updatePet.execute(1, { name: "Rex", categoryId: 1, status: "pending" }),
  },
  {
    scenario: "delete a pet with a completed order",
    competitor: "an order for it",
    run: (uc) => uc.placeOrder.execute({ petId: 3, quantity: 1 }, alice),
  },
  {
    scenario: "delete an empty category",
    competitor: "a pet created in it",
    run: (uc) => uc.createPet.execute({ name: "Nemo", categoryId: 3 }),
  },
  {
    scenario: "delete an empty category",
    competitor: "a pet moved into it",
    run: (uc) => uc.updatePet.execute(4, { name: "Kiwi", categoryId: 3 }),
  },
  { scenario: "create a pet", competitor: "deleting its category", run: (uc) => uc.deleteCategory.execute(3) },
  {
    scenario: "move a pet to another category",
    competitor: "deleting that category",
    run: (uc) => uc.deleteCategory.execute(3),
  },
  {
    scenario: "complete an order (sells a pending pet)",
    competitor: "cancelling it",
    run: (uc) => uc.cancelOrder.execute(1, alice),
  },
  {
    scenario: "cancel an order (restocks a pending pet)",
    competitor: "completing it",
    run: (uc) => uc.updateOrder.execute(1, { complete: true }, staff),
  },
  {
    scenario: "set the inventory",
    competitor: "an order",
    run: (uc) => uc.placeOrder.execute({ petId: 1, quantity: 1 }, alice),
  },
  {
    scenario: "restock a pet that sold out",
    competitor: "cancelling its order",
    run: (uc) => uc.cancelOrder.execute(1, alice),
  },
  {
    scenario: "cancel an order (restocks a pending pet)",
    competitor: "restocking that pet",
    run: (uc) => uc.setInventory.execute(2, 5),
  },
  {
    scenario: "cancel an order (restocks a pending pet)",
    competitor: "recovery past the grace period",
    run: (uc) => recoverPastGrace(uc),
  },
  {
    scenario: "complete an order (sells a pending pet)",
    competitor: "recovery past the grace period",
    run: (uc) => recoverPastGrace(uc),
  },
  {
    scenario: "cancel an order, the instance saw its pet before its fence moved",
    competitor: "recovery past the grace period",
    run: (uc) => recoverPastGrace(uc),
  },
  {
    scenario: "cancel an order, the instance saw its pet (in stock, wrongly)",
    competitor: "completing it",
    run: (uc) => uc.updateOrder.execute(1, { complete: true }, staff),
  },
  {
    scenario: "place an order for the last units",
    competitor: "recovery past the grace period",
    run: (uc) => recoverPastGrace(uc),
  },
  {
    scenario: "edit a pet (hold it)",
    competitor: "an order for the last units",
    run: (uc) => uc.placeOrder.execute({ petId: 1, quantity: 3 }, alice),
  },
];

/** Their writes are conditional, so a retry of one that had applied is refused: each must know its own write. */
const retriedScenarios = [
  "cancel an order (restocks a pending pet)",
  "complete an order (sells a pending pet)",
  "cancel an order, the instance saw its pet (in stock, wrongly)",
];

/** Each test walks every store call of an operation with fresh stores: on MongoDB that is many round trips. */
const SLOW = { timeout: 180_000 };

const settle = (promise: Promise<unknown>) =>
  promise.then(
    () => "done",
    (error: unknown) => error,
  );

export const faultsContract = (harness: ContractHarness): void => {
  describe(`Crash points and interleavings (${harness.name})`, () => {
    /** A fresh store with the fixture, what the instance saw of the scenario's pet, and the state before the operation. */
    const prepared = async (scenario?: Scenario) => {
      const stores = await harness.fresh();
      const clock = new ManualClock("2026-11-21T12:00:00.000Z");
      await given(useCasesOn(stores, clock));
      const hints = new StockHints();
      if (scenario?.seen) {
        const pet = await stores.pets.ofId(scenario.seen.petId);
        if (!pet) throw new Error(`no pet ${scenario.seen.petId}`);
        const { stock, fences = pet.fences } = scenario.seen;
        hints.saw(pet.id, { ...pet, status: "available", pendingCause: undefined, stock, fences });
      }
      return { stores, clock, hints, before: await visibleState(stores) };
    };

    /** Runs the operation with the plan applied; returns once it settled or its process "died" and the store is quiet. */
    const runPlanned = async (
      scenario: Scenario,
      run: Awaited<ReturnType<typeof prepared>>,
      plan: CallPlan | undefined,
    ) => {
      const faulty = faultyStores(run.stores, plan);
      const outcome = await Promise.race([
        settle(scenario.run(useCasesOn(faulty.stores, run.clock, run.hints))),
        faulty.crashed,
      ]);
      await faulty.quiet();
      return { outcome, calls: faulty.calls() };
    };

    /**
     * Another instance, later: the relay takes every pending event (so tombstones kept for their events have none
     * left), an instance starts (its start-up code runs beside the half-done work), then recovery past the grace period.
     */
    const recoverLater = async (stores: Stores, clock: ManualClock) => {
      for (
        let events = await stores.outbox.pending(100);
        events.length > 0;
        events = await stores.outbox.pending(100)
      ) {
        await stores.eventLog.append(events);
        await stores.outbox.acknowledge(events.map((e) => e.id));
      }
      await harness.restart?.();
      clock.advance(GRACE_MS + 1_000);
      await useCasesOn(stores, clock).recover.execute();
    };

    const crashFreeRun = async (scenario: Scenario) => {
      const run = await prepared(scenario);
      const { stores, clock, before } = run;
      const { calls } = await runPlanned(scenario, run, undefined);
      await recoverLater(stores, clock);
      const after = await visibleState(stores);
      await expectInvariants(stores, `${scenario.name}, crash-free`);
      if (!scenario.name.startsWith("set the inventory") && !scenario.name.startsWith("restock")) {
        const givenBefore = stockGiven(before);
        for (const [name, units] of Object.entries(stockGiven(after)))
          expect(units, `stock given of ${name}`).toBe(givenBefore[name] ?? 0);
      }
      return { before, after, calls };
    };

    for (const scenario of scenarios) {
      it(
        `${scenario.name}: every fault at every store call leaves the state before or after, invariants kept`,
        SLOW,
        async () => {
          const { before, after, calls } = await crashFreeRun(scenario);
          expect(calls).toBeGreaterThan(0);
          for (const fault of faults) {
            for (let at = 1; at <= calls; at++) {
              const context = `${scenario.name}, ${fault} at call ${at} of ${calls}`;
              const run = await prepared(scenario);
              expect(run.before).toEqual(before);
              await runPlanned(scenario, run, { at, fault: fault as Fault });
              await recoverLater(run.stores, run.clock);
              await expectInvariants(run.stores, context);
              const state = await visibleState(run.stores);
              expect([before, after], `${context}: all or nothing`).toContainEqual(state);
            }
          }
        },
      );

      it(
        `${scenario.name}: recovery on another instance before every store call, in and past the grace period`,
        SLOW,
        async () => {
          const { before, after, calls } = await crashFreeRun(scenario);
          for (const late of [false, true]) {
            for (let at = 1; at <= calls; at++) {
              const context = `${scenario.name}, recovery${late ? " past the grace period" : ""} before call ${at}`;
              const run = await prepared(scenario);
              const recoverNow = async () => {
                if (late) run.clock.advance(GRACE_MS + 1_000);
                await useCasesOn(run.stores, run.clock).recover.execute();
              };
              await runPlanned(scenario, run, { at, before: recoverNow });
              await recoverLater(run.stores, run.clock);
              await expectInvariants(run.stores, context);
              const state = await visibleState(run.stores);
              if (late) expect([before, after], `${context}: all or nothing`).toContainEqual(state);
              else expect(state, `${context}: as if recovery had not run`).toEqual(after);
            }
          }
        },
      );
    }

    for (const name of retriedScenarios) {
      const scenario = scenarios.find((s) => s.name === name);
      if (!scenario) throw new Error(`no scenario ${name}`);
      it(`${name}: a driver's retry of any store call that had applied answers as a clean run`, SLOW, async () => {
        const { after, calls } = await crashFreeRun(scenario);
        for (let at = 1; at <= calls; at++) {
          const context = `${name}, retry-after at call ${at} of ${calls}`;
          const run = await prepared(scenario);
          const { outcome } = await runPlanned(scenario, run, { at, fault: "retry-after" });
          expect(outcome, `${context}: the caller's answer`).toBe("done");
          await recoverLater(run.stores, run.clock);
          await expectInvariants(run.stores, context);
          expect(await visibleState(run.stores), context).toEqual(after);
        }
      });
    }

    for (const race of races) {
      const scenario = scenarios.find((s) => s.name === race.scenario);
      if (!scenario) throw new Error(`no scenario ${race.scenario}`);
      it(`${race.scenario}, with ${race.competitor} before every store call: invariants kept`, SLOW, async () => {
        const { calls } = await crashFreeRun(scenario);
        const givenBefore = stockGiven((await prepared()).before);
        for (let at = 1; at <= calls; at++) {
          const context = `${race.scenario} / ${race.competitor} before call ${at}`;
          const run = await prepared(scenario);
          const competing = { outcome: undefined as unknown };
          await runPlanned(scenario, run, {
            at,
            before: async () => {
              competing.outcome = await settle(race.run(useCasesOn(run.stores, run.clock)));
            },
          });
          await recoverLater(run.stores, run.clock);
          await expectInvariants(run.stores, context);
          const state = await visibleState(run.stores);
          expect(state.ordersOfMissingPets, context).toBe(0);
          const givenNow = stockGiven(state);
          if (
            !race.scenario.startsWith("set the inventory") &&
            !race.scenario.startsWith("restock") &&
            race.competitor !== "restocking that pet"
          ) {
            for (const [name, units] of Object.entries(givenNow))
              expect(units, `${context}: stock given of ${name}`).toBe(givenBefore[name] ?? 0);
          }
        }
      });
    }
  });
};
