import type { DomainEvent } from "../events/domain-event.ts";
import type { PageRequest } from "../shared/page.ts";
import type { OrderRecord } from "./order-record.ts";

export const orderSorts = ["id", "-id"] as const;
export type OrderSort = (typeof orderSorts)[number];

export interface OrderQuery extends PageRequest {
  sort?: OrderSort | undefined;
  complete?: boolean | undefined;
  petId?: number | undefined;
  placedBy?: number | undefined;
}

export interface OpenOrderWrite {
  orderId: number;
  expectedRevision?: number | undefined;
  events: readonly DomainEvent[];
}

/** `nonce` (unique per attempt) is kept as `closedBy`, so a retried write knows its own. */
export interface Cancellation extends OpenOrderWrite {
  at: Date;
  nonce: string;
}

export interface Completion extends OpenOrderWrite {
  at: Date;
  nonce: string;
  shipDate: Date;
}

/** An undefined ship date is removed. */
export interface ShipDateChange extends OpenOrderWrite {
  shipDate: Date | undefined;
}

/** Refused: the order as it is, so core can explain why. */
export type OrderWrite = { applied: true; order: OrderRecord } | { applied: false; order: OrderRecord | undefined };

/** Conditional single-document writes: docs/decisions/order-port-named-writes.md. */
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

  // Each only on an open order at `expectedRevision` if given.
  cancel(cancellation: Cancellation): Promise<OrderWrite>;
  complete(completion: Completion): Promise<OrderWrite>;
  changeShipDate(change: ShipDateChange): Promise<OrderWrite>;

  /** Keeps `abandoned` tombstones: their ids stay taken for good. */
  removeAllOfPet(petId: number): Promise<void>;
}
