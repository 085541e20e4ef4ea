import type { Actor } from "../access/permissions.ts";
import type { Order } from "./order.ts";
import { visibleOrder } from "./order-access.ts";
import { orderOf } from "./order-record.ts";
import type { Orders } from "./orders.port.ts";

export class GetOrder {
  readonly #orders: Orders;
  constructor(orders: Orders) {
    this.#orders = orders;
  }

  async execute(id: number, actor: Actor): Promise<Order> {
    return orderOf(await visibleOrder(this.#orders, id, actor));
  }
}
