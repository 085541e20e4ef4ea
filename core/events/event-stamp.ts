import type { Clock } from "../shared/clock.port.ts";
import type { DomainEvent, EventPayloads, EventType, OrderData } from "./domain-event.ts";

let sequence = 0;

/** Random words drawn 1,024 at a time: one call into the system's random source per 512 events, not per event. */
const pool = new Uint32Array(1024);
let drawn = pool.length;
const randomWord = (): number => {
  if (drawn === pool.length) {
    crypto.getRandomValues(pool);
    drawn = 0;
  }
  return pool[drawn++]!;
};
const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");

/**
 * Gives an event its id and time. Ids sort by time, then by the order this process recorded them (so the events of
 * one write keep their order), and end in 64 random bits that keep them unique across instances.
 */
export const stampEvent = <T extends EventType>(clock: Clock, type: T, data: EventPayloads[T]): DomainEvent => {
  const occurredAt = clock.now();
  sequence = (sequence + 1) % 0x1000000;
  const id = `evt_${hex(occurredAt.getTime(), 12)}${hex(sequence, 6)}${hex(randomWord(), 8)}${hex(randomWord(), 8)}`;
  return { id, type, occurredAt, data } as DomainEvent;
};

export const orderData = (order: { id: number; petId: number; quantity: number; shipDate: Date | undefined }, complete: boolean): OrderData => ({
  id: order.id,
  petId: order.petId,
  quantity: order.quantity,
  ...(order.shipDate !== undefined && { shipDate: order.shipDate.toISOString() }),
  complete,
});
