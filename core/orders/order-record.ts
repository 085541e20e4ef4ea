import type { Order } from "./order.ts";

/**
 * Clients see `open` and `complete`. `cancelled` is kept until its event is relayed; `abandoned` takes the id of a
 * placing that died after reserving, so a slow placer can no longer insert it.
 */
export type OrderState = "open" | "complete" | "cancelled" | "abandoned";

export interface OrderRecord extends Omit<Order, "complete"> {
  state: OrderState;
  createdAt: Date;
  /** The reservation (its attempt's nonce) whose units the order owns. */
  reservation?: string | undefined;
  /** Set when the order is cancelled or completed, until its pet records the units' return or departure. */
  settling?: Date | undefined;
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
