import { can, type Actor } from "../access/permissions.ts";
import { DomainError } from "../shared/domain-error.ts";
import { lookahead, toPage, type Page } from "../shared/page.ts";
import type { Order } from "./order.ts";
import { orderOf } from "./order-record.ts";
import type { OrderQuery, Orders } from "./orders.port.ts";

export class ListOrders {
  readonly #orders: Orders;
  constructor(orders: Orders) {
    this.#orders = orders;
  }

  async execute(query: OrderQuery, actor: Actor): Promise<Page<Order>> {
    const any = can(actor, "orders:any");
    if (!any && query.placedBy !== undefined && query.placedBy !== actor.keyId) {
      throw new DomainError("forbidden", "A customer sees only the orders of its own key");
    }
    const placedBy = any ? query.placedBy : actor.keyId;
    const fetched = await this.#orders.list({ ...query, placedBy, ...lookahead(query) });
    return toPage(fetched.map(orderOf), query, (o) => o.id);
  }
}
