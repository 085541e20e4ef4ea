import { describe, expect, it } from "vitest";
import { createMemoryStores } from "../../adapters/memory/memory-stores.ts";
import type { DomainEvent } from "../../core/events/domain-event.ts";
import type { Hold, PetRecord } from "../../core/pets/pet-record.ts";
import type { WebhookMessage } from "../../core/webhooks/webhook-message.ts";
import { consumeVariants, releaseVariants, reserveVariants } from "../../core/pets/stock-writes.ts";
import { aCategory, anOrder, aPet } from "../contracts/mothers.ts";
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
const expectLittle = (work: Work): void => {
  for (const [kind, count] of Object.entries(work)) expect(count, kind).toBeLessThan(FEW);
};

describe("memory store: per-request work independent of the store's size", () => {
  it("reads and writes a pet with 50,000 holds without copying, sorting or walking them", async () => {
    const stores = createMemoryStores();
    const holds: Hold[] = Array.from({ length: MANY }, (_, i) => ({ orderId: 2 * (i + 1), units: 1, since: new Date(start + i) }));
    await stores.pets.insert(aPet({ id: 1, stock: 10, holds }));
    const reserving = reserveVariants(clock, 1, 3, 1);
    const releasing = releaseVariants(clock, 1, 4, 1);
    const consuming = consumeVariants(clock, 1, 6, 1);
    let reserved: Awaited<ReturnType<typeof stores.pets.write>> | undefined;

    const work = await workOf(async () => {
      await stores.pets.ofId(1);
      reserved = await stores.pets.write(1, reserving);
      await stores.pets.write(1, releasing);
      await stores.pets.write(1, consuming);
      await stores.pets.write(1, consuming);
    });

    expectLittle(work);
    const after = await stores.pets.ofId(1);
    expect(after).toMatchObject({ stock: 10, revision: 4 });
    expect(after?.holds).toHaveLength(MANY - 1);
    expect(after?.holds.slice(0, 3)).toEqual([holds[0], { orderId: 3, units: 1, since: clock.now() }, holds[3]]);
    // What a write gave back is the pet as that write left it, later writes notwithstanding.
    expect(reserved?.pet?.holds.slice(0, 4).map((h) => h.orderId)).toEqual([2, 3, 4, 6]);
  });

  it("counts the copies of a read whose holds are looked at (the control: the meter sees them), the caller's to change", async () => {
    const stores = createMemoryStores();
    await stores.pets.insert(aPet({ id: 1, holds: Array.from({ length: MANY }, (_, i) => ({ orderId: i + 1, units: 1, since: new Date(start) })) }));
    let pet: PetRecord | undefined;

    const work = await workOf(async () => (pet = await stores.pets.ofId(1))?.holds);
    pet?.holds.splice(0, 10);
    pet?.holds[0]?.since?.setTime(0);

    expect(work.dates).toBeGreaterThanOrEqual(MANY);
    expect((await stores.pets.ofId(1))?.holds.slice(0, 11).map((h) => h.orderId)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect((await stores.pets.ofId(1))?.holds[10]?.since).toEqual(new Date(start));
  });

  it("pages through 50,000 pets looking at the page only, by ids, statuses or index", async () => {
    const stores = createMemoryStores();
    for (let id = MANY; id >= 1; id--) {
      await stores.pets.insert(aPet({ id, status: id % 2 ? "available" : "sold", holds: id === 40_000 ? [{ orderId: 1, units: 1 }] : [] }));
    }
    await stores.pets.insert(aPet({ id: MANY + 1, lifecycle: "creating", provisionalSince: new Date(start) }));
    const found: number[][] = [];
    const ids = (list: { id: number }[]) => found.push(list.map((p) => p.id));

    const work = await workOf(async () => {
      ids(await stores.pets.list({ limit: 10, ids: [49_999, 7, 3, 7] }));
      ids(await stores.pets.list({ limit: 3, after: 25_000, statuses: ["available"] }));
      ids(await stores.pets.list({ limit: 2 }));
      ids(await stores.pets.withHolds({ limit: 10 }));
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
      refusal = await stores.categories.add(aCategory({ id: MANY + 1, name: "CATEGORY 77" })).catch((error: unknown) => error);
      await stores.categories.replace(5, { name: "Renamed" });
      await stores.categories.add(aCategory({ id: MANY + 2, name: "Category 5" }));
      page = (await stores.categories.list({ limit: 3, after: 25_000 })).map((c) => c.id);
    });

    expectLittle(work);
    expect(refusal).toMatchObject({ code: "category_name_taken" });
    expect(page).toEqual([25_001, 25_002, 25_003]);
    await expect(stores.categories.add(aCategory({ id: MANY + 3, name: "renamed" }))).rejects.toMatchObject({ code: "category_name_taken" });
  });

  it("pages a customer's or a pet's orders among 50,000 and removes a pet's orders, walking only theirs", async () => {
    const stores = createMemoryStores();
    for (let id = 1; id <= MANY; id++) await stores.orders.insert(anOrder({ id, petId: id % 1000, placedBy: id % 500 }));
    const found: number[][] = [];
    const ids = (list: { id: number }[]) => found.push(list.map((o) => o.id));

    const work = await workOf(async () => {
      ids(await stores.orders.list({ limit: 3, placedBy: 7 }));
      ids(await stores.orders.list({ limit: 3, after: 1007, placedBy: 7, petId: 507 }));
      ids(await stores.orders.list({ limit: 3, after: 25_000 }));
      await stores.orders.removeAllOfPet(3);
    });

    expectLittle(work);
    expect(found).toEqual([[7, 507, 1007], [1507, 2507, 3507], [25_001, 25_002, 25_003]]);
    expect(await stores.orders.list({ limit: 10, petId: 3 })).toEqual([]);
    expect(await stores.orders.ofId(1003)).toBeUndefined();
    expect(await stores.orders.ofId(1004)).toMatchObject({ petId: 4 });
  });

  it("appends to a pet with 50,000 pending events, and reads and acknowledges a few among 50,000 pets, without walking the rest", async () => {
    const stores = createMemoryStores();
    for (let id = 1; id <= MANY; id++) await stores.pets.insert(aPet({ id }));
    await stores.pets.write(1, [{ when: {}, then: { events: Array.from({ length: MANY }, (_, i) => anEvent(i)) } }]);
    const appending = [{ when: {}, then: { events: [anEvent(MANY)] } }];

    const appended = await workOf(() => stores.pets.write(1, appending));

    expectLittle(appended);
    expect((await stores.outbox.pending(MANY + 10)).map((e) => e.id)).toEqual(Array.from({ length: MANY + 1 }, (_, i) => anEvent(i).id));

    await stores.outbox.acknowledge(Array.from({ length: MANY + 1 }, (_, i) => anEvent(i).id));
    await stores.pets.write(2, [{ when: {}, then: { events: [anEvent(1), anEvent(2)] } }]);
    let pending: DomainEvent[] = [];
    const relayed = await workOf(async () => {
      pending = await stores.outbox.pending(10);
      await stores.outbox.acknowledge([anEvent(1).id]);
    });

    expectLittle(relayed);
    expect(pending).toEqual([anEvent(1), anEvent(2)]);
    expect(await stores.outbox.pending(10)).toEqual([anEvent(2)]);
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
    for (const message of await stores.webhookMessages.claimDue(now, { owner: "w", until: new Date(start + 1000) }, MANY)) {
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
