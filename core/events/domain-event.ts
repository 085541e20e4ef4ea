import type { PetStatus } from "../pets/pet.ts";

export interface OrderData {
  id: number;
  petId: number;
  quantity: number;
  shipDate?: string;
  complete: boolean;
}

export interface EventPayloads {
  "order.placed": OrderData;
  "order.completed": OrderData;
  "order.cancelled": OrderData;
  "pet.status_changed": { petId: number; from: PetStatus; to: PetStatus };
  // An order knows the delta it made, not the result; staff set a quantity.
  "inventory.changed": { petId: number; delta: number } | { petId: number; quantity: number };
}

export type EventType = keyof EventPayloads;

/** Recorded in the write that made the change (docs/decisions/outbox-in-the-same-write.md). */
export type DomainEvent = {
  [T in EventType]: {
    id: string;
    type: T;
    occurredAt: Date;
    data: EventPayloads[T];
  };
}[EventType];
