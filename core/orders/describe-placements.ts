import type { ApiKeys } from "../access/api-keys.port.ts";
import type { Order } from "./order.ts";

/** Who placed an order and when: the key, with its label while the key exists. */
export interface Placement {
  at: Date;
  by: { id: number; label?: string | undefined };
}

export interface PlacedOrder {
  order: Order;
  placement: Placement;
}

/**
 * The placements of orders the caller may already see. The distinct keys of the orders are read in one look-up, so
 * the cost follows the page (at most 100 orders), never the number of keys or orders in the store.
 */
export class DescribePlacements {
  readonly #apiKeys: ApiKeys;
  constructor(apiKeys: ApiKeys) {
    this.#apiKeys = apiKeys;
  }

  async execute(orders: readonly Order[]): Promise<PlacedOrder[]> {
    if (orders.length === 0) return [];
    const keyIds = [...new Set(orders.map((o) => o.placedBy))];
    const labels = new Map((await this.#apiKeys.ofIds(keyIds)).map((k): [number, string] => [k.id, k.label]));
    return orders.map((order) => {
      const label = labels.get(order.placedBy);
      const by = label === undefined ? { id: order.placedBy } : { id: order.placedBy, label };
      return { order, placement: { at: order.placedAt, by } };
    });
  }
}
