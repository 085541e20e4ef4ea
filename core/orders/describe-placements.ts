import type { ApiKeys } from "../access/api-keys.port.ts";
import type { Order } from "./order.ts";

/** The key's label only while the key exists. */
export interface Placement {
  at: Date;
  by: { id: number; label?: string | undefined };
}

export interface PlacedOrder {
  order: Order;
  placement: Placement;
}

/** For orders the caller may already see: one look-up for their keys, so the cost follows the page. */
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
