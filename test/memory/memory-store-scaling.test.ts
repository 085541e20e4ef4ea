import { describe, expect, it } from "vitest";
import { createMemoryStores } from "../../adapters/memory/memory-stores.ts";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { WebhookMessage } from "../../core/webhooks/webhook-message.ts";
import { applySettlement, clearSettleMark, postReservation, reserveSeeing } from "../../core/pets/stock-writes.ts";
import { aCategory, anOrder, aPet, recordEvents, recordOrderEvents, removePet } from "../contracts/mothers.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { workOf, type Work } from "../support/work-meter.ts";

/**
 * A request that touches one pet, one page or a few events must cost the same in a store of any size: these tests
 * count the copies, sorts and walks the memory adapters make (test/support/work-meter.ts) around stores holding
 * 50,000 of something, and allow a few dozen. Before, every one of these counts was 50,000 or more.
 */
const MANY = 50_000;
const FEW = 100;
const clock = new ManualClock("2026-11-21T12:00:00.000Z");
const start = Date.parse("2026-11-21T11:00:00.000Z");
const anEvent = (n: number): DomainEvent => ({
  id: `evt_${String(n).padStart(6, "0")}`,
  type: "inventory.changed",
  occurredAt: new Date(start + n),
  data: { petId: 1, delta: -1 },
});
/** A few dozen walks, copies and sorts; lookups a few per item touched (removing a pet's 50 orders looks up each several times). */
const expectLittle = (work: Work): void => {
  for (const [kind, count] of Object.entries(work))
    expect(count, kind).toBeLessThan(kind === "lookedUp" ? 5 * FEW : FEW);
};
/** The event stamped `n` ms after `start`, on pets (even `n`) or orders (odd `n`), ids in time order. */
const aTimedEvent = (n: number, id = `evt_${String(n).padStart(6, "0")}`): DomainEvent =>
  n % 2 === 0
    ? { id, type: "inventory.changed", occurredAt: new Date(start + n), data: { petId: 1, delta: -1 } }
    : {
        id,
        type: "order.placed",
        occurredAt: new Date(start + n),
        data: { id: 1, petId: 1, quantity: 1, complete: false },
      };

describe("memory store: per-request work independent of the store's size", () => {
  it("reserves, settles and reads a pet 50,000 open orders hold units of, its work the same as for one", async () => {
    const stores = createMemoryStores();
    await stores.pets.insert(aPet({ id: 1, stock: 10, holdCount: MANY, heldUnits: MANY }));

    const work = await workOf(async () => {
      await stores.pets.ofId(1);
      await reserveSeeing(stores.pets, clock, 1, 3, 1, "n3");
      await postReservation(stores.pets, 1, 3, "n3");
      await applySettlement(stores.pets, clock, "release", { id: 4, petId: 1, quantity: 1 }, 0);
      await clearSettleMark(stores.pets, 1, 4);
      await applySettlement(stores.pets, clock, "consume", { id: 6, petId: 1, quantity: 1 }, 0);
    });

    expectLittle(work);
    expect(await stores.pets.ofId(1)).toMatchObject({
      stock: 10,
      holdCount: MANY - 1,
      heldUnits: MANY - 1,
      revision: 6,
      marks: [{ orderId: 6 }],
    });
  });

  it("pages through 50,000 pets looking at the page only, by ids, statuses or index", async () => {
    const stores = createMemoryStores();
    for (let id = MANY; id >= 1; id--) {
      const marks =
        id === 40_000 ? [{ orderId: 1, kind: "reserve" as const, units: 1, since: new Date(start), nonce: "n" }] : [];
      await stores.pets.insert(aPet({ id, status: id % 2 ? "available" : "sold", holdCount: 1, marks }));
    }
    await stores.pets.insert(aPet({ id: MANY + 1, lifecycle: "creating", provisionalSince: new Date(start) }));
    const found: number[][] = [];
    const ids = (list: { id: number }[]) => found.push(list.map((p) => p.id));

    const work = await workOf(async () => {
      ids(await stores.pets.list({ limit: 10, ids: [49_999, 7, 3, 7] }));
      ids(await stores.pets.list({ limit: 3, after: 25_000, statuses: ["available"] }));
      ids(await stores.pets.list({ limit: 2 }));
      ids(await stores.pets.withMarks({ limit: 10 }));
      ids(await stores.pets.provisional({ limit: 10 }));
      found.push([Number(await stores.pets.anyNaming(2))]);
    });

    expectLittle(work);
    expect(found).toEqual([[3, 7, 49_999], [25_001, 25_003, 25_005], [1, 2], [40_000], [MANY + 1], [0]]);
  });

  it("checks a category name and pages categories among 50,000 looking at one entry and the page", async () => {
    const stores = createMemoryStores();
    for (let id = 1; id <= MANY; id++) await stores.categories.add(aCategory({ id, name: `Category ${id}` }));
    let page: number[] = [];
    let refusal: unknown;

    const work = await workOf(async () => {
      refusal = await stores.categories
        .add(aCategory({ id: MANY + 1, name: "CATEGORY 77" }))
        .catch((error: unknown) => error);
      await stores.categories.replace(5, { name: "Renamed" });
      await stores.categories.add(aCategory({ id: MANY + 2, name: "Category 5" }));
      page = (await stores.categories.list({ limit: 3, after: 25_000 })).map((c) => c.id);
    });

    expectLittle(work);
    expect(refusal).toMatchObject({ code: "category_name_taken" });
    expect(page).toEqual([25_001, 25_002, 25_003]);
    await expect(stores.categories.add(aCategory({ id: MANY + 3, name: "renamed" }))).rejects.toMatchObject({
      code: "category_name_taken",
    });
  });

  it("pages a customer's or a pet's orders among 50,000 and removes a pet's orders, walking only theirs", async () => {
    const stores = createMemoryStores();
    for (let id = 1; id <= MANY; id++)
      await stores.orders.insert(anOrder({ id, petId: id % 1000, placedBy: id % 500 }));
    const found: number[][] = [];
    const ids = (list: { id: number }[]) => found.push(list.map((o) => o.id));

    const work = await workOf(async () => {
      ids(await stores.orders.list({ limit: 3, placedBy: 7 }));
      ids(await stores.orders.list({ limit: 3, after: 1007, placedBy: 7, petId: 507 }));
      ids(await stores.orders.list({ limit: 3, after: 25_000 }));
      await stores.orders.removeAllOfPet(3);
    });

    expectLittle(work);
    expect(found).toEqual([
      [7, 507, 1007],
      [1507, 2507, 3507],
      [25_001, 25_002, 25_003],
    ]);
    expect(await stores.orders.list({ limit: 10, petId: 3 })).toEqual([]);
    expect(await stores.orders.ofId(1003)).toBeUndefined();
    expect(await stores.orders.ofId(1004)).toMatchObject({ petId: 4 });
  });

  it("appends to a pet with 50,000 pending events, and reads and acknowledges a few among 50,000 pets, without walking the rest", async () => {
    const stores = createMemoryStores();
    for (let id = 1; id <= MANY; id++) await stores.pets.insert(aPet({ id }));
    await recordEvents(
      stores.pets,
      1,
      Array.from({ length: MANY }, (_, i) => anEvent(i)),
    );
    const appending = {
      petId: 1,
      fields: { name: "Rex" },
      checkedStatus: "available",
      events: [anEvent(MANY)],
    } as const;

    const appended = await workOf(() => stores.pets.edit(appending));

    expectLittle(appended);
    expect((await stores.outbox.pending(MANY + 10)).map((e) => e.id)).toEqual(
      Array.from({ length: MANY + 1 }, (_, i) => anEvent(i).id),
    );

    await stores.outbox.acknowledge(Array.from({ length: MANY + 1 }, (_, i) => anEvent(i).id));
    await recordEvents(stores.pets, 2, [anEvent(1), anEvent(2)]);
    let pending: DomainEvent[] = [];
    const relayed = await workOf(async () => {
      pending = await stores.outbox.pending(10);
      await stores.outbox.acknowledge([anEvent(1).id]);
    });

    expectLittle(relayed);
    expect(pending).toEqual([anEvent(1), anEvent(2)]);
    expect(await stores.outbox.pending(10)).toEqual([anEvent(2)]);
  });

  it("drains 50,000 events pending on pets and orders 100 at a time, oldest first, each call looking at about 100", async () => {
    const stores = createMemoryStores();
    const owners = 100;
    for (let id = 1; id <= owners; id++) {
      await stores.pets.insert(aPet({ id }));
      await stores.orders.insert(anOrder({ id }));
    }
    for (let n = 0; n < MANY; n++) {
      const owner = 1 + (Math.floor(n / 2) % owners);
      if (n % 2 === 0) await recordEvents(stores.pets, owner, [aTimedEvent(n)]);
      else await recordOrderEvents(stores.orders, owner, [aTimedEvent(n)]);
    }
    const drained: string[] = [];
    const calls: Work[] = [];

    let batch: DomainEvent[] = [];
    do {
      calls.push(
        await workOf(async () => {
          batch = await stores.outbox.pending(FEW);
          await stores.outbox.acknowledge(batch.map((e) => e.id));
        }),
      );
      drained.push(...batch.map((e) => e.id));
    } while (batch.length > 0);

    expect(drained).toEqual(Array.from({ length: MANY }, (_, n) => aTimedEvent(n).id));
    expect(calls).toHaveLength(MANY / FEW + 1);
    // The same work with 50,000 pending as with 300 (the last batches also drain the documents, removing their outboxes).
    expect(new Set(calls.slice(0, -3).map((work) => JSON.stringify(work)))).toEqual(
      new Set([JSON.stringify(calls[0])]),
    );
    // Per call at most: a Date for each event handed out (the meter walks each one's arguments too), the acknowledged
    // ids walked once, a few lookups for each (still pending? whose?) in either kind; never a sort.
    for (const work of calls) {
      expect(work).toMatchObject({ cloned: 0, sorted: 0 });
      expect(work.dates).toBeLessThanOrEqual(FEW);
      expect(work.walked).toBeLessThanOrEqual(3 * FEW);
      expect(work.lookedUp).toBeLessThanOrEqual(10 * FEW);
    }
  });

  it("gives events written out of time order oldest first across pets and orders, ties by id, after acknowledgements and a pet's removal", async () => {
    const stores = createMemoryStores();
    for (const id of [1, 2, 3]) await stores.pets.insert(aPet({ id }));
    await stores.orders.insert(anOrder({ id: 1 }), [aTimedEvent(41, "evt_o1")]);
    const written: [kind: "pet" | "order", owner: number, n: number, id: string][] = [
      ["pet", 1, 50, "evt_p1"],
      ["pet", 2, 30, "evt_p2"],
      ["order", 1, 30, "evt_o2"],
      ["pet", 1, 10, "evt_p3"],
      ["pet", 3, 30, "evt_p4"],
      ["order", 1, 60, "evt_o3"],
      ["pet", 2, 30, "evt_a1"],
      ["order", 1, 0, "evt_o4"],
      ["pet", 2, 60, "evt_p5"],
    ];
    for (const [kind, owner, n, id] of written) {
      if (kind === "pet") await recordEvents(stores.pets, owner, [aTimedEvent(n, id)]);
      else await recordOrderEvents(stores.orders, owner, [aTimedEvent(n, id)]);
    }
    const pendingIds = async (limit = 100) => (await stores.outbox.pending(limit)).map((e) => e.id);

    expect(await pendingIds()).toEqual([
      "evt_o4",
      "evt_p3",
      "evt_a1",
      "evt_o2",
      "evt_p2",
      "evt_p4",
      "evt_o1",
      "evt_p1",
      "evt_o3",
      "evt_p5",
    ]);
    expect(await pendingIds(4)).toEqual(["evt_o4", "evt_p3", "evt_a1", "evt_o2"]);
    expect((await stores.outbox.pending(2))[1]).toEqual(aTimedEvent(10, "evt_p3"));

    await stores.outbox.acknowledge(["evt_o4", "evt_p3", "evt_p4", "evt_o3"]);
    expect(await removePet(stores.pets, 2)).toBe(true);
    // The removed pet's events stay until relayed.
    expect(await pendingIds()).toEqual(["evt_a1", "evt_o2", "evt_p2", "evt_o1", "evt_p1", "evt_p5"]);

    // Older than everything still pending, older than what was acknowledged, and in between.
    await recordEvents(stores.pets, 1, [aTimedEvent(20, "evt_p6"), aTimedEvent(4, "evt_p7")]);
    await recordOrderEvents(stores.orders, 1, [aTimedEvent(45, "evt_o5"), aTimedEvent(30, "evt_o0")]);
    expect(await pendingIds()).toEqual([
      "evt_p7",
      "evt_p6",
      "evt_a1",
      "evt_o0",
      "evt_o2",
      "evt_p2",
      "evt_o1",
      "evt_o5",
      "evt_p1",
      "evt_p5",
    ]);
    expect(await pendingIds(3)).toEqual(["evt_p7", "evt_p6", "evt_a1"]);
  });

  it("keeps the order of a model (every pending event, sorted) through random writes, acknowledgements and removals", async () => {
    const stores = createMemoryStores();
    let seed = 13;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    const model = new Map<string, { n: number; kind: "pet" | "order"; owner: number }>();
    const expected = (limit: number) =>
      [...model.entries()]
        .sort(([a, x], [b, y]) => x.n - y.n || (a < b ? -1 : 1))
        .slice(0, limit)
        .map(([id]) => id);
    const pets = new Set<number>();
    let nextPet = 1;
    let clock = 0;
    let handedOut: string[] | undefined;
    for (let id = 1; id <= 20; id++) await stores.orders.insert(anOrder({ id }));

    for (let step = 0; step < 3_000; step++) {
      const roll = random(100);
      if (roll < 5 || pets.size === 0) {
        await stores.pets.insert(aPet({ id: nextPet }));
        pets.add(nextPet++);
      } else if (roll < 60) {
        const kind = random(2) === 0 ? "pet" : "order";
        const owner = kind === "pet" ? [...pets][random(pets.size)]! : 1 + random(20);
        // Mostly in time order, sometimes far behind, often tied.
        const n = random(10) === 0 ? random(clock + 1) : (clock += random(3));
        const event = aTimedEvent(n % 2 === (kind === "pet" ? 0 : 1) ? n : n + 1, `evt_${step}`);
        if (kind === "pet") await recordEvents(stores.pets, owner, [event]);
        else await recordOrderEvents(stores.orders, owner, [event]);
        model.set(event.id, { n: event.occurredAt.getTime(), kind, owner });
      } else if (roll < 75) {
        const ids = expected(1 + random(8)).filter(() => random(3) > 0);
        if (random(4) === 0) ids.push(...[...model.keys()].filter(() => random(20) === 0));
        await stores.outbox.acknowledge(ids);
        for (const id of ids) model.delete(id);
      } else if (roll < 90) {
        // As a relay does: a batch handed out, then acknowledged (the outbox finds it as handed, not by id); sometimes
        // only part of it or out of its order, and sometimes steps later, after writes, removals and other batches.
        if (handedOut === undefined || random(2) === 0) {
          handedOut = (await stores.outbox.pending(1 + random(12))).map((e) => e.id);
          expect(handedOut, `step ${step}`).toEqual(expected(handedOut.length));
        }
        if (random(3) > 0) {
          const ids = random(3) === 0 ? handedOut.filter(() => random(2) > 0) : handedOut;
          await stores.outbox.acknowledge(random(5) === 0 ? ids.reverse() : ids);
          for (const id of ids) model.delete(id);
          handedOut = undefined;
        }
      } else if (roll < 93) {
        const owner = [...pets][random(pets.size)]!;
        await removePet(stores.pets, owner);
        // Its events stay pending until acknowledged.
        pets.delete(owner);
      } else {
        const limit = 1 + random(12);
        expect(
          (await stores.outbox.pending(limit)).map((e) => e.id),
          `step ${step}`,
        ).toEqual(expected(limit));
      }
    }
    expect((await stores.outbox.pending(10_000)).map((e) => e.id)).toEqual(expected(10_000));
  });

  it("claims due webhook messages looking at the backlog, not at 50,000 delivered ones kept for a week", async () => {
    const stores = createMemoryStores();
    const now = new Date(start);
    const aMessage = (id: string): WebhookMessage => ({
      id,
      subscriptionId: 1,
      eventId: `evt_${id}`,
      type: "order.placed",
      payload: "{}",
      state: "pending",
      attempts: 0,
      nextAttemptAt: now,
      createdAt: now,
    });
    await stores.webhookMessages.enqueue(Array.from({ length: MANY }, (_, i) => aMessage(`done_${i}`)));
    for (const message of await stores.webhookMessages.claimDue(
      now,
      { owner: "w", until: new Date(start + 1000) },
      MANY,
    )) {
      await stores.webhookMessages.settle(message.id, "w", { state: "delivered", attempts: 1 });
    }
    await stores.webhookMessages.enqueue([aMessage("new_1"), aMessage("new_2")]);
    let claimed: WebhookMessage[] = [];

    const work = await workOf(async () => {
      claimed = await stores.webhookMessages.claimDue(now, { owner: "w", until: new Date(start + 1000) }, 10);
    });

    expectLittle(work);
    expect(claimed.map((m) => m.id)).toEqual(["new_1", "new_2"]);
    expect((await stores.webhookMessages.ofId("done_0"))?.state).toBe("delivered");
  });
});
