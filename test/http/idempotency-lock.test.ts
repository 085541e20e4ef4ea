import { beforeEach, describe, expect, it } from "vitest";
import type { IdSequence } from "../../core/shared/id-allocator.port.ts";
import { expectError, retryAfterOf } from "../support/http-assertions.ts";
import { stockedPet, stockOf, usePetstore } from "../support/http-fixtures.ts";

/**
 * The lock of an Idempotency-Key (issue 11, item 6): a first request that never finishes — its process died —
 * blocks retries for 60 seconds only, with Retry-After counting down; then one retry runs the operation again, and
 * the first request, should it wake up after all, can neither overwrite nor free what the retry recorded.
 */
describe("Idempotency-Key whose first request never finishes", () => {
  const { t, keys } = usePetstore();
  /** Makes the next order's id allocation hang until `wake` is called; `reached` resolves once it hangs. */
  let stall: () => { reached: Promise<void>; wake: (error: Error) => void };
  beforeEach(() => {
    const ids = t.stores.ids;
    const next = ids.next.bind(ids);
    stall = () => {
      let reached!: () => void;
      let wake!: (error: Error) => void;
      const hung = new Promise<never>((_, reject) => (wake = reject));
      ids.next = (sequence: IdSequence) => {
        if (sequence !== "orders") return next(sequence);
        ids.next = next;
        reached();
        return hung;
      };
      return { reached: new Promise((resolve) => (reached = resolve)), wake };
    };
  });

  it("answers 409 with Retry-After until the 60-second lock runs out, then places the order once, and the late first request changes nothing", async () => {
    const pet = await stockedPet(t, 5);
    const order = () =>
      t.client.post("/store/orders", {
        key: keys.customer,
        body: { petId: pet.id, quantity: 1 },
        headers: { "idempotency-key": "order-lock" },
      });
    const stalled = stall();
    const first = order();
    await stalled.reached;

    const early = await order();
    expectError(early, 409, "idempotency_request_in_progress");
    expect(retryAfterOf(early)).toBe(60);
    t.clock.advance(45_000);
    const later = await order();
    expectError(later, 409, "idempotency_request_in_progress");
    expect(retryAfterOf(later)).toBe(15);

    t.clock.advance(15_000);
    const retry = await order();
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    const replay = await order();
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(retry.body);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");

    // The first request wakes up and fails; its release must not free the key the retry now owns.
    stalled.wake(new Error("the store went away"));
    expect((await first).status).toBeGreaterThanOrEqual(500);
    const afterWake = await order();
    expect(afterWake.headers.get("idempotent-replayed")).toBe("true");
    expect(afterWake.body).toEqual(retry.body);

    expect((await t.client.get(`/store/orders?petId=${pet.id}`, { key: keys.staff })).body).toEqual([retry.body]);
    expect(await stockOf(t, pet.id)).toBe(4);
  });
});
