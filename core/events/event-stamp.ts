import type { DomainEvent, EventPayloads, EventType, OrderData } from "./domain-event.ts";

let sequence = 0;

const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");

/**
 * The ids' random tails (64 bits, 16 hex digits), drawn and written in hex for 512 events at a time: one call into
 * the system's random source and one conversion per 512 events (a number's `toString(16)` above 2^31 is slow).
 */
const TAILS = 512;
const TAIL = 16;
const byteHex = Array.from({ length: 256 }, (_, byte) => hex(byte, 2));
const bytes = new Uint8Array((TAILS * TAIL) / 2);
let tails = "";
let taken = TAILS;
const randomTail = (): string => {
  if (taken === TAILS) {
    crypto.getRandomValues(bytes);
    let text = "";
    for (const byte of bytes) text += byteHex[byte];
    tails = text;
    taken = 0;
  }
  const from = TAIL * taken++;
  return tails.slice(from, from + TAIL);
};

/** Several events are stamped in the same millisecond under load: its hex is written once. */
let lastTime = -1;
let lastTimeHex = "";
const timeHex = (time: number): string => {
  if (time !== lastTime) {
    lastTime = time;
    lastTimeHex = hex(time, 12);
  }
  return lastTimeHex;
};

/**
 * Gives an event its id and time (`occurredAt`, the clock's reading for the write it goes with: the events of one
 * write, and its other times, share one). Ids sort by time, then by the order this process recorded them (so the
 * events of one write keep their order), and end in 64 random bits that keep them unique across instances.
 */
export const stampEvent = <T extends EventType>(occurredAt: Date, type: T, data: EventPayloads[T]): DomainEvent => {
  sequence = (sequence + 1) % 0x1000000;
  const id = `evt_${timeHex(occurredAt.getTime())}${hex(sequence, 6)}${randomTail()}`;
  return { id, type, occurredAt, data } as DomainEvent;
};

export const orderData = (order: { id: number; petId: number; quantity: number; shipDate: Date | undefined }, complete: boolean): OrderData => ({
  id: order.id,
  petId: order.petId,
  quantity: order.quantity,
  ...(order.shipDate !== undefined && { shipDate: order.shipDate.toISOString() }),
  complete,
});
