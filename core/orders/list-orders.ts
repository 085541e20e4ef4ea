import { can, type Actor } from "../access/permissions.ts";
import { lookahead, toPage, type Page } from "../shared/page.ts";
import type { Order } from "./order.ts";
import type { OrderQuery, Orders } from "./orders.port.ts";

export class ListOrders {
  readonly #orders: Orders;
  constructor(orders: Orders) {
    this.#orders = orders;
  }

  async execute(query: OrderQuery, actor: Actor): Promise<Page<Order>> {
    const placedBy = can(actor, "orders:any") ? query.placedBy : actor.keyId;
    const fetched = await this.#orders.list({ ...query, placedBy, ...lookahead(query) });
    return toPage(fetched, query, (o) => o.id);
  }
}
