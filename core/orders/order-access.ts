import { can, type Actor } from "../access/permissions.ts";
import { DomainError, notFound, revisionMismatch } from "../shared/domain-error.ts";
import { isVisibleOrder, type OrderRecord } from "./order-record.ts";
import type { Orders, OrderWrite } from "./orders.port.ts";

export const orderCompleted = (id: number): DomainError =>
  new DomainError("order_completed", `Order ${id} is complete and can no longer change`);

/** Another key's order is missing: a customer learns nothing about orders it did not place. */
export const visibleOrder = async (orders: Orders, id: number, actor: Actor): Promise<OrderRecord> => {
  const order = await orders.ofId(id);
  if (!isVisibleOrder(order) || (order.placedBy !== actor.keyId && !can(actor, "orders:any")))
    throw notFound("Order", id);
  return order;
};

/** A refused close that carries this attempt's nonce had applied: a driver's retry. */
export const closedByItself = (written: OrderWrite, nonce: string): OrderRecord | undefined =>
  written.applied || written.order?.closedBy === nonce ? written.order : undefined;

export const explainRefusal = (
  order: OrderRecord | undefined,
  id: number,
  expectedRevision: number | undefined,
): DomainError => {
  if (!isVisibleOrder(order)) return notFound("Order", id);
  if (order.state === "complete") return orderCompleted(id);
  if (expectedRevision !== undefined && order.revision !== expectedRevision) return revisionMismatch("Order", id);
  return new DomainError("service_unavailable", `Order ${id} changed meanwhile; try again`, 1);
};
