import type { DomainEvent } from "../events/domain-event.ts";
import type { PageRequest } from "../shared/page.ts";
import type { OrderRecord, OrderState } from "./order-record.ts";

export const orderSorts = ["id", "-id"] as const;
export type OrderSort = (typeof orderSorts)[number];

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

export interface OrderChange {
  state?: OrderState;
  shipDate?: Date | "none";
  settling?: Date;
  events?: readonly DomainEvent[];
}

/** Every state change is one conditional single-document write. */
export interface Orders {
  /** Tombstones too. */
  ofId(id: number): Promise<OrderRecord | undefined>;
  settlingBefore(cutoff: Date, page: PageRequest): Promise<OrderRecord[]>;
  /** A cancelled order whose events were all relayed is deleted. */
  settled(id: number): Promise<void>;
  /** Open and complete orders only. */
  list(query: OrderQuery): Promise<OrderRecord[]>;
  /** False, writing nothing, when the id is taken. */
  insert(order: OrderRecord, events?: readonly DomainEvent[]): Promise<boolean>;
  /** Undefined, writing nothing, when the condition does not hold. */
  write(id: number, when: OrderCondition, then: OrderChange): Promise<OrderRecord | undefined>;
  /** Keeps `abandoned` tombstones: their ids stay taken for good. */
  removeAllOfPet(petId: number): Promise<void>;
}
