import type { Order } from "./order.ts";

/** Clients see `open` and `complete`; the others are tombstones (docs/consistency.md#documents). */
export type OrderState = "open" | "complete" | "cancelled" | "abandoned";

export interface OrderRecord extends Omit<Order, "complete" | "placedAt"> {
  state: OrderState;
  createdAt: Date;
  /** The nonce of the reservation whose units the order owns. */
  reservation?: string | undefined;
  /** Until its pet records the units' return or departure. */
  settling?: Date | undefined;
  closedBy?: string | undefined;
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
  placedAt: record.createdAt,
  revision: record.revision,
});

/** Burns the id of a lost placing: no attempt can write an order under it any more. */
export const abandonedOrder = (id: number, petId: number, quantity: number, at: Date): OrderRecord => ({
  id,
  petId,
  quantity,
  shipDate: undefined,
  placedBy: 0,
  state: "abandoned",
  revision: 1,
  createdAt: at,
});
