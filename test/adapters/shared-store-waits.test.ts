import type { Db } from "mongodb";
import { describe, expect, it } from "vitest";
import { MongoIdAllocator } from "../../adapters/mongo/mongo-id-allocator.ts";

/** A counters collection whose first command never answers, as a command the driver wedged does; later ones answer. */
const wedgedOnce = (): Db => {
  let calls = 0;
  let value = 0;
  const counters = {
    findOneAndUpdate: (_filter: unknown, update: { $inc: { value: number } }) => {
      calls++;
      if (calls === 1) return new Promise(() => undefined);
      value += update.$inc.value;
      return Promise.resolve({ value });
    },
  };
  return { collection: () => counters } as unknown as Db;
};

describe("waits shared by many requests on MongoDB", () => {
  it("an id block whose take never answers holds its callers only until it counts as wedged, then a new one is taken", async () => {
    const ids = new MongoIdAllocator(wedgedOnce(), { wedgedAfterMs: 20 });
    const first = ids.next("orders");
    const second = ids.next("orders");
    await expect(first).rejects.toMatchObject({ code: "service_unavailable" });
    await expect(second).rejects.toMatchObject({ code: "service_unavailable" });
    // The next caller does not wait on the wedged take: it takes a block of its own.
    await expect(ids.next("orders")).resolves.toBeGreaterThan(0);
  });
});
