import type { DomainEvent } from "../events/domain-event.ts";
import type { PageRequest } from "../shared/page.ts";
import type { OrderRecord, OrderState } from "./order-record.ts";

/** The orders of an order listing: ascending or descending id. */
export const orderSorts = ["id", "-id"] as const;
export type OrderSort = (typeof orderSorts)[number];

/** With `-id`, `after` is the previous page's last id and the page has lower ones. */
export interface OrderQuery extends PageRequest {
  sort?: OrderSort | undefined;
  complete?: boolean | undefined;
  petId?: number | undefined;
  placedBy?: number | undefined;
}

export interface OrderCondition {
  state: OrderState;
  revision?: number | undefined;
}

/** What a write changes; `revision` always goes up by one. */
export interface OrderChange {
  state?: OrderState;
  shipDate?: Date | "none";
  /** Set by a cancellation or completion: its pet side is still to be settled (settleOrder). */
  settling?: Date;
  /** Appended to the order's outbox in the same write. */
  events?: readonly DomainEvent[];
}

/** Every state change is one conditional single-document write. */
export interface Orders {
  /** Any order, cancelled and abandoned ones included. */
  ofId(id: number): Promise<OrderRecord | undefined>;
  /** Orders whose settling began at or before `cutoff`, ascending id after `after`: recovery's work list. */
  settlingBefore(cutoff: Date, page: PageRequest): Promise<OrderRecord[]>;
  /** Records that the order's pet side is settled; a cancelled order whose events were all relayed goes. */
  settled(id: number): Promise<void>;
  /** Open and complete orders only, in the query's id order (ascending by default), at most `limit` items. */
  list(query: OrderQuery): Promise<OrderRecord[]>;
  /** False, and nothing written, when an order with this id exists already. */
  insert(order: OrderRecord, events?: readonly DomainEvent[]): Promise<boolean>;
  /** Applies the change only while the condition holds; the order afterwards, or undefined when it did not hold. */
  write(id: number, when: OrderCondition, then: OrderChange): Promise<OrderRecord | undefined>;
  /** Deletes every order naming the pet, except `abandoned` tombstones: their ids stay taken for good. */
  removeAllOfPet(petId: number): Promise<void>;
}
