import { describe, expect, it } from "vitest";
import { MemoryApiKeys } from "../../adapters/memory/memory-api-keys.repository.ts";
import type { ApiKeys } from "../../core/access/api-keys.port.ts";
import type { Order } from "../../core/orders/order.ts";
import { DescribePlacements } from "../../core/orders/describe-placements.ts";
import { anApiKey, at } from "../contracts/mothers.ts";

const anOrder = (id: number, placedBy: number): Order => ({
  id,
  petId: 1,
  quantity: 1,
  shipDate: undefined,
  complete: false,
  placedBy,
  placedAt: at(`2026-11-21T12:${String(id % 60).padStart(2, "0")}:00.000Z`),
  revision: 1,
});

/** The keys store, with every `ofIds` call it answers written down. */
const countingKeys = async () => {
  const store = new MemoryApiKeys();
  await store.add(anApiKey({ id: 1, label: "Alice's shop" }));
  await store.add(anApiKey({ id: 2, label: "Bob's farm" }));
  await store.add(anApiKey({ id: 3, label: "Front desk", role: "staff" }));
  const calls: number[][] = [];
  const keys: ApiKeys = new Proxy(store, {
    get(target, property) {
      if (property === "ofIds")
        return (ids: readonly number[]) => {
          calls.push([...ids]);
          return target.ofIds(ids);
        };
      const value: unknown = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { keys, calls };
};

describe("DescribePlacements", () => {
  it("gives each order when it was placed and its key's label, reading each distinct key once per page", async () => {
    const { keys, calls } = await countingKeys();
    const orders = Array.from({ length: 100 }, (_, i) => anOrder(i + 1, (i % 3) + 1));

    const placed = await new DescribePlacements(keys).execute(orders);

    expect(calls).toHaveLength(1);
    expect(calls[0]!.toSorted()).toEqual([1, 2, 3]);
    expect(placed.map((p) => p.order)).toEqual(orders);
    expect(placed.slice(0, 3).map((p) => p.placement)).toEqual([
      { at: orders[0]!.placedAt, by: { id: 1, label: "Alice's shop" } },
      { at: orders[1]!.placedAt, by: { id: 2, label: "Bob's farm" } },
      { at: orders[2]!.placedAt, by: { id: 3, label: "Front desk" } },
    ]);
  });

  it("gives a key that no longer exists by its id alone", async () => {
    const { keys } = await countingKeys();

    const [placed] = await new DescribePlacements(keys).execute([anOrder(7, 42)]);

    expect(placed!.placement).toEqual({ at: anOrder(7, 42).placedAt, by: { id: 42 } });
  });

  it("reads nothing for no orders", async () => {
    const { keys, calls } = await countingKeys();

    expect(await new DescribePlacements(keys).execute([])).toEqual([]);
    expect(calls).toEqual([]);
  });
});
