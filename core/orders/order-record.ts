import type { Order } from "./order.ts";

/**
 * Clients see `open` and `complete`. `cancelled`: an invisible tombstone, kept until the relay has taken its
 * `order.cancelled` event. `abandoned`: written by recovery in place of an order whose placing died after reserving
 * its stock, so that the slow placer, should it still be alive, can no longer insert it (the id is taken).
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
