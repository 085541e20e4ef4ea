import type { DomainEvent, EventPayloads, EventType, OrderData } from "./domain-event.ts";

let sequence = 0;

const hex = (value: number, digits: number): string => value.toString(16).padStart(digits, "0");
/** Bursts share a millisecond: its digits are written once. */
let lastMs = Number.NaN;
let lastMsHex = "";
const msHex = (ms: number): string => (ms === lastMs ? lastMsHex : ((lastMs = ms), (lastMsHex = hex(ms, 12))));
/** Keeps ids unique across instances and restarts without a random draw per event. */
const instance = crypto.randomUUID().replaceAll("-", "").slice(16);

/** `evt_`, time, sequence and instance in hex: ids sort by time, then by recording order. */
const stampedId = (ms: number, n: number): string => `evt_${msHex(ms)}${hex(n, 6)}${instance}`;

export const stampEvent = <T extends EventType>(occurredAt: Date, type: T, data: EventPayloads[T]): DomainEvent => {
  sequence = (sequence + 1) % 0x1000000;
  return { id: stampedId(occurredAt.getTime(), sequence), type, occurredAt, data } as DomainEvent;
};

export const orderData = (
  order: { id: number; petId: number; quantity: number; shipDate: Date | undefined },
  complete: boolean,
): OrderData => ({
  id: order.id,
  petId: order.petId,
  quantity: order.quantity,
  ...(order.shipDate !== undefined && { shipDate: order.shipDate.toISOString() }),
  complete,
});
