import type { Order } from "./order.ts";

/**
 * `placing`: written before its stock is reserved, invisible until confirmed `open`; `cancelled`: a tombstone,
 * invisible, kept only until the relay has taken its `order.cancelled` event. Clients see `open` and `complete`.
 */
export type OrderState = "placing" | "open" | "complete" | "cancelled";

export interface OrderRecord extends Omit<Order, "complete"> {
  state: OrderState;
  createdAt: Date;
}

export const isVisibleOrder = (order: OrderRecord | undefined): order is OrderRecord =>
  order !== undefined && (order.state === "open" || order.state === "complete");

export const orderOf = (record: OrderRecord): Order => ({
  id: record.id,
  petId: record.petId,
  quantity: record.quantity,
  shipDate: record.shipDate,
  complete: record.state === "complete",
  placedBy: record.placedBy,
  revision: record.revision,
});
