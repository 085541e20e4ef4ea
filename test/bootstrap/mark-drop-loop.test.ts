import { describe, expect, it, vi } from "vitest";
import { createMemoryStores } from "../../adapters/memory/memory-stores.ts";
import { MARK_DROP_WAIT_MS } from "../../core/orders/mark-drops.ts";
import { startTestPetstore } from "../support/test-petstore.ts";

/** The service's loop over its waiting mark drops (docs/consistency.md#mark-drops-that-ride). */
describe("the mark-drop loop", () => {
  const anOrder = async () => {
    const stores = createMemoryStores();
    const t = await startTestPetstore({ stores });
    const staff = await t.newKey("staff");
    const category = await t.client.post("/categories", { key: staff, body: { name: "Dogs" } });
    const pet = await t.client.post("/pets", { key: staff, body: { name: "Rex", categoryId: category.body.id } });
    await t.client.put(`/store/inventory/${pet.body.id}`, { key: staff, body: { quantity: 3 } });
    const order = await t.client.post("/store/orders", { key: staff, body: { petId: pet.body.id, quantity: 1 } });
    expect(order.status).toBe(201);
    const marks = async () => (await stores.pets.ofId(pet.body.id))!.marks.map((m) => `${m.kind} ${m.orderId}`);
    return { t, marks, orderId: order.body.id as number };
  };

  it("leaves an order's post waiting, then drops it once it waited, without another request", async () => {
    const { t, marks, orderId } = await anOrder();
    try {
      expect(await marks()).toEqual([`reserve ${orderId}`]);
      t.clock.advance(MARK_DROP_WAIT_MS);
      await vi.waitFor(async () => expect(await marks()).toEqual([]), { timeout: 10_000, interval: 50 });
    } finally {
      await t.close();
    }
  });

  it("drops every waiting mark at a graceful stop", async () => {
    const { t, marks, orderId } = await anOrder();
    expect(await marks()).toEqual([`reserve ${orderId}`]);
    await t.close();
    expect(await marks()).toEqual([]);
  });
});
