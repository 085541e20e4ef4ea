import type { PageRequest } from "../shared/page.ts";
import type { Order } from "./order.ts";

export interface OrderQuery extends PageRequest {
  complete?: boolean | undefined;
  petId?: number | undefined;
  placedBy?: number | undefined;
}

export interface Orders {
  ofId(id: number): Promise<Order | undefined>;
  /** Ascending id order, at most `limit` items. */
  list(query: OrderQuery): Promise<Order[]>;
  add(order: Order): Promise<void>;
  /** Writes `complete`/`shipDate` only while the order is open; undefined when it is gone or already complete. */
  updateOpen(id: number, changes: { complete: boolean; shipDate: Date | undefined }): Promise<Order | undefined>;
  /** Deletes the order only while it is open; returns what was deleted. */
  removeOpen(id: number): Promise<Order | undefined>;
  hasOpenForPet(petId: number): Promise<boolean>;
}
