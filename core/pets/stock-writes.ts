import { stampEvent } from "../events/event-stamp.ts";
import type { Clock } from "../shared/clock.port.ts";
import type { ListedPet, WrittenPet } from "./pet-record.ts";
import type { PetStatus } from "./pet.ts";
import type { Pets, PetVariant, PetWrite } from "./pets.port.ts";

/**
 * The stock moves of the pet aggregate, each ONE conditional write whose variants carry the status change the
 * stock change causes (PRODUCT.md §4), so no crash point ever separates the two. Reserve, release and consume are
 * keyed by order id: repeating one does nothing. The variants of one move share its stock event: only one applies.
 */

const statusEvent = (at: Date, petId: number, from: PetStatus, to: PetStatus) => stampEvent(at, "pet.status_changed", { petId, from, to });
const stockEvent = (at: Date, petId: number, change: { delta: number } | { quantity: number }) =>
  stampEvent(at, "inventory.changed", { petId, ...change });

export type ReserveOutcome = "reserved" | "already-held" | "unknown-pet" | "not-available" | "insufficient-stock";

export const reserveVariants = (clock: Clock, petId: number, orderId: number, units: number): PetVariant[] => {
  const when = { lifecycle: "none", status: "available", noHoldOf: orderId } as const;
  const at = clock.now();
  const addHold = { orderId, units, since: at };
  const taken = stockEvent(at, petId, { delta: -units });
  return [
    { when: { ...when, stock: { gt: units } }, then: { stock: { by: -units }, addHold, events: [taken] } },
    {
      // An order takes the last unit: available → pending.
      when: { ...when, stock: { eq: units } },
      then: { stock: { by: -units }, addHold, status: "pending", events: [taken, statusEvent(at, petId, "available", "pending")] },
    },
  ];
};

/** Why no reservation of `units` could apply for any order, whatever it holds; undefined when one could. */
export const foreseeReserve = (pet: ListedPet | undefined, units: number): Exclude<ReserveOutcome, "reserved" | "already-held"> | undefined => {
  if (!pet || pet.lifecycle !== undefined) return "unknown-pet";
  if (pet.status !== "available") return "not-available";
  if (pet.stock < units) return "insufficient-stock";
  return undefined;
};

/** Why no reserve variant applies, or undefined when one would apply now (the pet changed meanwhile: retry). */
export const explainReserve = (pet: WrittenPet | undefined, orderId: number, units: number): Exclude<ReserveOutcome, "reserved"> | undefined => {
  if (pet && pet.lifecycle === undefined && pet.namedHolds.some((h) => h.orderId === orderId)) return "already-held";
  return foreseeReserve(pet, units);
};

/**
 * `expectedStock`: the stock the caller believes the pet has; when it is exactly the units, the last-unit variant is
 * tried first. Answers the outcome and the pet as the deciding write left it (or as it is, when none applied).
 */
export const reserveSeeing = async (
  pets: Pets,
  clock: Clock,
  petId: number,
  orderId: number,
  units: number,
  expectedStock?: number,
): Promise<{ outcome: ReserveOutcome; pet: WrittenPet | undefined }> => {
  const variants = reserveVariants(clock, petId, orderId, units);
  if (expectedStock === units) variants.reverse();
  for (;;) {
    const result = await pets.write(petId, variants);
    if (result.applied !== undefined) return { outcome: "reserved", pet: result.pet };
    const outcome = explainReserve(result.pet, orderId, units);
    if (outcome) return { outcome, pet: result.pet };
  }
};

export const reserve = async (
  pets: Pets,
  clock: Clock,
  petId: number,
  orderId: number,
  units: number,
  expectedStock?: number,
): Promise<ReserveOutcome> => (await reserveSeeing(pets, clock, petId, orderId, units, expectedStock)).outcome;

/** Gives a hold's units back to stock; from stock 0 a pending pet is available again. */
export const releaseVariants = (clock: Clock, petId: number, orderId: number, units: number): PetVariant[] => {
  const hold = { orderId, units };
  const returned = { stock: { by: units }, removeHoldOf: orderId } as const;
  const at = clock.now();
  const back = stockEvent(at, petId, { delta: units });
  return [
    { when: { hold, stock: { gt: 0 } }, then: { ...returned, events: [back] } },
    { when: { hold, stock: { eq: 0 }, status: "pending" }, then: { ...returned, status: "available", events: [back, statusEvent(at, petId, "pending", "available")] } },
    { when: { hold, stock: { eq: 0 }, statusNot: "pending" }, then: { ...returned, events: [back] } },
  ];
};

/** True when this call released the hold; false when there was none (released before, or never taken). */
export const release = async (pets: Pets, clock: Clock, petId: number, orderId: number, units: number): Promise<boolean> =>
  settle(pets, petId, orderId, units, releaseVariants(clock, petId, orderId, units));

/** A completed order's units leave for good; its last open order completed at stock 0 makes a pet sold. */
export const consumeVariants = (clock: Clock, petId: number, orderId: number, units: number): PetVariant[] => {
  const hold = { orderId, units };
  const removeHoldOf = orderId;
  return [
    { when: { hold, holdCount: { gt: 1 } }, then: { removeHoldOf } },
    { when: { hold, holdCount: { eq: 1 }, stock: { gt: 0 } }, then: { removeHoldOf } },
    {
      when: { hold, holdCount: { eq: 1 }, stock: { eq: 0 }, status: "pending" },
      then: { removeHoldOf, status: "sold", events: [statusEvent(clock.now(), petId, "pending", "sold")] },
    },
    { when: { hold, holdCount: { eq: 1 }, stock: { eq: 0 }, statusNot: "pending" }, then: { removeHoldOf } },
  ];
};

export const consume = async (pets: Pets, clock: Clock, petId: number, orderId: number, units: number): Promise<boolean> =>
  settle(pets, petId, orderId, units, consumeVariants(clock, petId, orderId, units));

const settle = async (pets: Pets, petId: number, orderId: number, units: number, variants: PetVariant[]): Promise<boolean> => {
  for (;;) {
    const result: PetWrite = await pets.write(petId, variants);
    if (result.applied !== undefined) return true;
    if (!result.pet?.namedHolds.some((h) => h.orderId === orderId && h.units === units)) return false;
  }
};

/** Staff set the stock; a sold pet restocked above 0 is available again. */
export const setStockVariants = (clock: Clock, petId: number, quantity: number, expectedRevision?: number): PetVariant[] => {
  const when = { lifecycle: "none", ...(expectedRevision !== undefined && { revision: expectedRevision }) } as const;
  const at = clock.now();
  const then = { stock: { to: quantity }, events: [stockEvent(at, petId, { quantity })] } as const;
  if (quantity === 0) return [{ when, then }];
  return [
    { when: { ...when, statusNot: "sold" }, then },
    {
      when: { ...when, status: "sold" },
      then: { ...then, status: "available", events: [...then.events, statusEvent(at, petId, "sold", "available")] },
    },
  ];
};
