import type { DomainEvent, EventPayloads, EventType, OrderData } from "./domain-event.ts";

let sequence = 0;

/** Built as character codes in one step: a string of `+` pieces would be flattened again by every compare and hash. */
const HEX = Array.from("0123456789abcdef", (digit) => digit.charCodeAt(0));
const PREFIX = Array.from("evt_", (c) => c.charCodeAt(0));
const TIME_AT = PREFIX.length;
const SEQUENCE_AT = TIME_AT + 12;
const TAIL_AT = SEQUENCE_AT + 6;
const codes: number[] = [...PREFIX, ...new Array<number>(12 + 6 + 16).fill(HEX[0]!)];

/** `value` (below 2^24) as `digits` hex digits, from `at` on. */
const writeHex = (value: number, at: number, digits: number): void => {
  for (let i = 0; i < digits; i++) codes[at + i] = HEX[(value >>> (4 * (digits - 1 - i))) & 15]!;
};

/** The random tails (64 bits each), drawn for 512 events at a time: one call into the system's random source per 512. */
const TAILS = 512;
const TAIL_BYTES = 8;
const randomBytes = new Uint8Array(TAILS * TAIL_BYTES);
let taken = TAILS;
const writeRandomTail = (): void => {
  if (taken === TAILS) {
    crypto.getRandomValues(randomBytes);
    taken = 0;
  }
  const from = TAIL_BYTES * taken++;
  for (let i = 0; i < TAIL_BYTES; i++) {
    const byte = randomBytes[from + i]!;
    codes[TAIL_AT + 2 * i] = HEX[byte >>> 4]!;
    codes[TAIL_AT + 2 * i + 1] = HEX[byte & 15]!;
  }
};

/** `evt_`, the time (ms, 12 hex digits), the sequence (6) and 16 random hex digits. */
const eventId = (time: number): string => {
  // A time in ms needs more than 32 bits: written as two halves of 24.
  writeHex(Math.floor(time / 2 ** 24), TIME_AT, 6);
  writeHex(time % 2 ** 24, TIME_AT + 6, 6);
  writeHex(sequence, SEQUENCE_AT, 6);
  writeRandomTail();
  return String.fromCharCode.apply(null, codes);
};

/**
 * Ids sort by time, then by recording order within this process, and end in 64 random bits to stay unique across
 * instances.
 */
export const stampEvent = <T extends EventType>(occurredAt: Date, type: T, data: EventPayloads[T]): DomainEvent => {
  sequence = (sequence + 1) % 0x1000000;
  return { id: eventId(occurredAt.getTime()), type, occurredAt, data } as DomainEvent;
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
