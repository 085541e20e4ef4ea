import { can, type Actor } from "../access/permissions.ts";
import { DomainError, notFound } from "../shared/domain-error.ts";
import type { Order } from "./order.ts";
import type { Orders } from "./orders.port.ts";

export const orderCompleted = (id: number): DomainError =>
  new DomainError("order_completed", `Order ${id} is complete and can no longer change`);

/** Another key's order is reported as missing: a customer learns nothing about orders it did not place. */
export const visibleOrder = async (orders: Orders, id: number, actor: Actor): Promise<Order> => {
  const order = await orders.ofId(id);
  if (!order || (order.placedBy !== actor.keyId && !can(actor, "orders:any"))) throw notFound("Order", id);
  return order;
};

/** After a conditional write missed: the order is either gone or complete by now. */
export const explainMissedWrite = async (orders: Orders, id: number): Promise<never> => {
  throw (await orders.ofId(id))?.complete ? orderCompleted(id) : notFound("Order", id);
};
