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
 * What each event says (plain JSON). An order's stock change knows the delta, not the result, so it carries `delta`.
 */
export interface EventPayloads {
  "order.placed": OrderData;
  "order.completed": OrderData;
  "order.cancelled": OrderData;
  "pet.status_changed": { petId: number; from: PetStatus; to: PetStatus };
  "inventory.changed": { petId: number; delta: number } | { petId: number; quantity: number };
}

export type EventType = keyof EventPayloads;

/** Recorded in the write that made the change (docs/decisions/outbox-in-the-same-write.md). */
export type DomainEvent = {
  [T in EventType]: {
    /** `evt_…`, unique. */
    id: string;
    type: T;
    occurredAt: Date;
    data: EventPayloads[T];
  };
}[EventType];
