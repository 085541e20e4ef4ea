import type { Actor } from "../access/permissions.ts";
import type { Order } from "./order.ts";
import { visibleOrder } from "./order-access.ts";
import type { Orders } from "./orders.port.ts";

export class GetOrder {
  readonly #orders: Orders;
  constructor(orders: Orders) {
    this.#orders = orders;
  }

  execute(id: number, actor: Actor): Promise<Order> {
    return visibleOrder(this.#orders, id, actor);
  }
}
