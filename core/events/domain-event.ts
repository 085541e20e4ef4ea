import type { PetStatus } from "../pets/pet.ts";

/** An order as clients see it (GET /store/orders/{id}). */
export interface OrderData {
  id: number;
  petId: number;
  quantity: number;
  shipDate?: string;
  complete: boolean;
}

/**
 * What each event says (`data`: plain JSON). A stock change written by an order knows by how much the stock moved,
 * not what it came to (the write is conditional on a bound, not on a read value), so `inventory.changed` carries
 * `delta` for orders and `quantity` for a staff change.
 */
export interface EventPayloads {
  "order.placed": OrderData;
  "order.completed": OrderData;
  "order.cancelled": OrderData;
  "pet.status_changed": { petId: number; from: PetStatus; to: PetStatus };
  "inventory.changed": { petId: number; delta: number } | { petId: number; quantity: number };
}

export type EventType = keyof EventPayloads;

/** Recorded in the same single-document write as the change that caused it (design §4). */
export type DomainEvent = {
  [T in EventType]: {
    /** `evt_…`, unique. */
    id: string;
    type: T;
    occurredAt: Date;
    data: EventPayloads[T];
  };
}[EventType];
