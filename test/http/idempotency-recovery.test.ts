import { describe, expect, it } from "vitest";
import { RecoverInterruptedWrites } from "../../core/recovery/recover-interrupted-writes.ts";
import { expectError, retryAfterOf } from "../support/http-assertions.ts";
import { stockedPet, stockOf, usePetstore } from "../support/http-fixtures.ts";
import { describeViolations, readViolations } from "../support/invariants.ts";

const GRACE_MS = 30_000;

/**
 * The first attempt of an order under an Idempotency-Key dies half-way (the units held for its order id, the order
 * never written). Recovery (docs/consistency.md) undoes it once past the grace period; the retry after the 60-second
 * lock places the order, once; the dead attempt, should it wake, changes nothing.
 */
describe("Idempotency-Key and recovery: a half-placed first attempt", () => {
  const { t, keys } = usePetstore();

  it("is undone by recovery, so the retry after the lock places exactly one order", async () => {
    const pet = await stockedPet(t, 5);
    const orders = t.stores.orders;
    const insert = orders.insert.bind(orders);
    let reached!: () => void;
    const halfDone = new Promise<void>((resolve) => (reached = resolve));
    let wake!: (error: Error) => void;
    const dead = new Promise<never>((_, reject) => (wake = reject));
    orders.insert = () => {
      orders.insert = insert;
      reached();
      return dead; // the process dies after reserving, before the order is written
    };
    const order = () =>
      t.client.post("/store/orders", {
        key: keys.customer,
        body: { petId: pet.id, quantity: 1 },
        headers: { "idempotency-key": "half-placed" },
      });

    const first = order();
    await halfDone;
    expect(await stockOf(t, pet.id)).toBe(4); // held for an order that was never written
    expectError(await order(), 409, "idempotency_request_in_progress");

    t.clock.advance(GRACE_MS + 1_000);
    await new RecoverInterruptedWrites({ ...t.stores, clock: t.clock }, GRACE_MS).execute();
    expect(await stockOf(t, pet.id)).toBe(5);
    const locked = await order();
    expectError(locked, 409, "idempotency_request_in_progress");
    expect(retryAfterOf(locked)).toBe(29);

    t.clock.advance(29_000);
    const retry = await order();
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();

    wake(new Error("the store went away"));
    expect((await first).status).toBeGreaterThanOrEqual(500);
    const replay = await order();
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(retry.body);

    expect((await t.client.get(`/store/orders?petId=${pet.id}`, { key: keys.staff })).body).toEqual([retry.body]);
    expect(await stockOf(t, pet.id)).toBe(4);
    const { violations } = await readViolations((path) => t.client.get(path, { key: keys.staff }), {
      stockGiven: new Map([[pet.id, 5]]),
      statusFollowsStockOnly: true,
    });
    expect(describeViolations(violations)).toBe("");
  });
});
