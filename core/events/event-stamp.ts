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
export const stampedId = (ms: number, n: number): string => `evt_${msHex(ms)}${hex(n, 6)}${instance}`;

export const stampEvent = <T extends EventType>(occurredAt: Date, type: T, data: EventPayloads[T]): DomainEvent => {
  sequence = (sequence + 1) % 0x1000000;
  return { id: stampedId(occurredAt.getTime(), sequence), type, occurredAt, data } as DomainEvent;
};

const ID_LENGTH = "evt_".length + 12 + 6 + instance.length;
const STAMPED = /^evt_[0-9a-f]{18}/;

/** The time and sequence of an id this process stamped; undefined for any other id. */
export const stampOf = (id: string): { ms: number; sequence: number } | undefined => {
  if (id.length !== ID_LENGTH || !STAMPED.test(id) || !id.endsWith(instance)) return undefined;
  return { ms: Number.parseInt(id.slice(4, 16), 16), sequence: Number.parseInt(id.slice(16, 22), 16) };
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
