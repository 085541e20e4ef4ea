import type { Clock } from "../shared/clock.port.ts";
import type { DomainEvent, EventPayloads, EventType, OrderData } from "./domain-event.ts";

let sequence = 0;

/**
 * Gives an event its id and time. Ids sort by time, then by the order this process recorded them (so the events of
 * one write keep their order), and end in 64 random bits that keep them unique across instances.
 */
export const stampEvent = <T extends EventType>(clock: Clock, type: T, data: EventPayloads[T]): DomainEvent => {
  const occurredAt = clock.now();
  sequence = (sequence + 1) % 0x1000000;
  const random = crypto.getRandomValues(new Uint32Array(2));
  const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");
  const id = `evt_${hex(occurredAt.getTime(), 12)}${hex(sequence, 6)}${hex(random[0] ?? 0, 8)}${hex(random[1] ?? 0, 8)}`;
  return { id, type, occurredAt, data } as DomainEvent;
};

export const orderData = (order: { id: number; petId: number; quantity: number; shipDate: Date | undefined }, complete: boolean): OrderData => ({
  id: order.id,
  petId: order.petId,
  quantity: order.quantity,
  ...(order.shipDate !== undefined && { shipDate: order.shipDate.toISOString() }),
  complete,
});
