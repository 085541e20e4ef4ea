import { describe, expect, it } from "vitest";
import { aWebhookWorld } from "./webhook-world.ts";

describe("the relay and the event log", () => {
  it("appends every relayed event to the log, in the order relayed, before acknowledging it", async () => {
    const world = aWebhookWorld();
    const ids = [
      world.event("order.placed", { id: 1 }),
      world.event("inventory.changed", { petId: 1, delta: -1 }),
      world.event("pet.status_changed"),
    ];

    expect(await world.relay.execute()).toBe(3);

    expect(world.feed.size).toBe(0);
    const page = await world.eventLog.readAfter(0, 10);
    expect(page.events.map((e) => e.id)).toEqual(ids);
    expect(page.events[0]).toMatchObject({ type: "order.placed", data: { id: 1 }, occurredAt: world.clock.now() });
  });

  it("leaves the events pending when the log refuses them, and logs each once when relayed again", async () => {
    const world = aWebhookWorld();
    const id = world.event("order.placed", { id: 1 });
    const append = world.eventLog.append.bind(world.eventLog);
    world.eventLog.append = async () => {
      throw new Error("the store is not answering");
    };

    await expect(world.relay.execute()).rejects.toThrow("not answering");
    expect(world.feed.size).toBe(1);

    world.eventLog.append = append;
    // A crash after the append and before the acknowledgement: the next run appends the same event again.
    const acknowledge = world.feed.acknowledge.bind(world.feed);
    world.feed.acknowledge = async () => {
      throw new Error("crashed before acknowledging");
    };
    await expect(world.relay.execute()).rejects.toThrow("crashed");
    world.feed.acknowledge = acknowledge;
    expect(await world.relay.execute()).toBe(1);

    expect(world.feed.size).toBe(0);
    expect((await world.eventLog.readAfter(0, 10)).events.map((e) => e.id)).toEqual([id]);
  });
});
