import { stampEvent } from "../events/event-stamp.ts";
import type { Clock } from "../shared/clock.port.ts";
import { DomainError } from "../shared/domain-error.ts";
import { fenceOf, markOf, type ListedPet, type PetRecord } from "./pet-record.ts";
import type { PetStatus } from "./pet.ts";
import type { PetChange, PetCondition, Pets, PetVariant } from "./pets.port.ts";

/**
 * The stock moves of the pet aggregate, each ONE conditional write whose variants carry the status change the stock
 * change causes (PRODUCT.md §4). Their crash points and the marks and fences that make each move apply once are in
 * docs/consistency.md ("Marks and fences").
 */

/** The documented maximum of a pet's stock; stock plus the units orders hold never exceeds it. */
export const MAX_STOCK = 1_000_000;

const statusEvent = (at: Date, petId: number, from: PetStatus, to: PetStatus) => stampEvent(at, "pet.status_changed", { petId, from, to });
const stockEvent = (at: Date, petId: number, change: { delta: number } | { quantity: number }) =>
  stampEvent(at, "inventory.changed", { petId, ...change });

export type ReserveOutcome = "reserved" | "already-held" | "unknown-pet" | "not-available" | "insufficient-stock";

export const reserveVariants = (at: Date, petId: number, orderId: number, units: number, nonce: string): PetVariant[] => {
  const when = { lifecycle: "none", status: "available", noMark: { orderId, kind: "reserve" } } as const;
  const taken = stockEvent(at, petId, { delta: -units });
  const then: PetChange = { stock: { by: -units }, held: { orders: 1, units }, addMark: { orderId, kind: "reserve", units, since: at, nonce } };
  return [
    { when: { ...when, stock: { gt: units } }, then: { ...then, events: [taken] } },
    {
      // An order takes the last unit: available → pending, because it sold out.
      when: { ...when, stock: { eq: units } },
      then: { ...then, status: "pending", pendingCause: "sold-out", events: [taken, statusEvent(at, petId, "available", "pending")] },
    },
  ];
};

/** Why no reservation of `units` could apply for any order; undefined when one could. */
export const foreseeReserve = (pet: ListedPet | undefined, units: number): Exclude<ReserveOutcome, "reserved" | "already-held"> | undefined => {
  if (!pet || pet.lifecycle !== undefined) return "unknown-pet";
  if (pet.status !== "available") return "not-available";
  if (pet.stock < units) return "insufficient-stock";
  return undefined;
};

/** Why no reserve variant applied, or undefined when one would apply now (the pet changed meanwhile: retry). */
export const explainReserve = (pet: PetRecord | undefined, orderId: number, units: number): Exclude<ReserveOutcome, "reserved"> | undefined => {
  if (pet && pet.lifecycle === undefined && markOf(pet, orderId, "reserve")) return "already-held";
  return foreseeReserve(pet, units);
};

/**
 * Takes `units` for the order under this attempt's `nonce`. `expectedStock`: when it is exactly the units, the
 * last-unit variant is tried first. Answers the outcome and the pet as the deciding write left it.
 */
export const reserveSeeing = async (
  pets: Pets,
  clock: Clock,
  petId: number,
  orderId: number,
  units: number,
  nonce: string,
  expectedStock?: number,
): Promise<{ outcome: ReserveOutcome; pet: PetRecord | undefined }> => {
  const variants = reserveVariants(clock.now(), petId, orderId, units, nonce);
  if (expectedStock === units) variants.reverse();
  for (;;) {
    const result = await pets.write(petId, variants);
    if (result.applied !== undefined) return { outcome: "reserved", pet: result.pet };
    const outcome = explainReserve(result.pet, orderId, units);
    if (outcome) return { outcome, pet: result.pet };
  }
};

/** The units a stock change returns go back; a pet pending because it sold out is available again. */
const returnVariants = (at: Date, petId: number, when: PetCondition, units: number, then: PetChange): PetVariant[] => {
  const back = stockEvent(at, petId, { delta: units });
  const returned: PetChange = { ...then, stock: { by: units }, held: { orders: -1, units: -units } };
  return [
    {
      when: { ...when, soldOut: true },
      then: { ...returned, status: "available", pendingCause: "none", events: [back, statusEvent(at, petId, "pending", "available")] },
    },
    { when: { ...when, soldOut: false }, then: { ...returned, events: [back] } },
  ];
};

/** The order now owns the units its attempt reserved: the reserve mark goes. True when this call removed it. */
export const keepReservation = async (pets: Pets, petId: number, orderId: number, nonce: string): Promise<boolean> =>
  (await pets.write(petId, [{ when: { mark: { orderId, kind: "reserve", nonce } }, then: { removeMark: { orderId, kind: "reserve" } } }])).applied !==
  undefined;

/** Undoes a reservation no order owns (a placing that died, or a redundant attempt): once, by its mark. */
export const undoReservation = async (pets: Pets, clock: Clock, petId: number, orderId: number, units: number, nonce: string | undefined): Promise<boolean> => {
  const when: PetCondition = { mark: { orderId, kind: "reserve", nonce } };
  const variants = returnVariants(clock.now(), petId, when, units, { removeMark: { orderId, kind: "reserve" } });
  return (await pets.write(petId, variants)).applied !== undefined;
};

/**
 * Settles a cancelled (`release`: units back) or completed (`consume`: units gone for good) order on its pet: applies
 * once, leaving a settle mark, guarded by the fence read before the order was last seen unsettled. Answers "applied"
 * (now or before: the mark is there), "fence-moved" (read the fence, then the order, again) or "no-pet".
 */
export const applySettlement = async (
  pets: Pets,
  clock: Clock,
  how: "release" | "consume",
  order: { id: number; petId: number; quantity: number },
  fence: number,
): Promise<{ outcome: "applied" | "fence-moved" | "no-pet"; pet: PetRecord | undefined }> => {
  const { id: orderId, petId, quantity: units } = order;
  const at = clock.now();
  const when: PetCondition = { noMark: { orderId, kind: "settle" }, fence: { orderId, value: fence } };
  const mark: PetChange = { addMark: { orderId, kind: "settle", units, since: at } };
  const variants = how === "release" ? returnVariants(at, petId, when, units, mark) : consumeVariants(at, petId, when, units, mark);
  const result = await pets.write(petId, variants);
  if (result.applied !== undefined || markOf(result.pet, orderId, "settle")) return { outcome: "applied", pet: result.pet };
  return { outcome: result.pet ? "fence-moved" : "no-pet", pet: result.pet };
};

/** A completed order's units leave for good; the last holding order completed at stock 0 makes a sold-out pet sold. */
const consumeVariants = (at: Date, petId: number, when: PetCondition, units: number, then: PetChange): PetVariant[] => {
  const consumed: PetChange = { ...then, held: { orders: -1, units: -units } };
  return [
    {
      when: { ...when, soldOut: true, holdCount: { eq: 1 }, stock: { eq: 0 } },
      then: { ...consumed, status: "sold", pendingCause: "none", events: [statusEvent(at, petId, "pending", "sold")] },
    },
    { when: { ...when, soldOut: true, holdCount: { gt: 1 } }, then: consumed },
    { when: { ...when, soldOut: true, holdCount: { eq: 1 }, stock: { gt: 0 } }, then: consumed },
    { when: { ...when, soldOut: false }, then: consumed },
  ];
};

/** The order records its settlement: the settle mark goes, and the fence of its bucket moves on. */
export const clearSettleMark = async (pets: Pets, petId: number, orderId: number): Promise<void> => {
  await pets.write(petId, [{ when: { mark: { orderId, kind: "settle" } }, then: { removeMark: { orderId, kind: "settle" }, bumpFence: orderId } }]);
};

export { fenceOf };

/**
 * Staff set the stock: a sold pet, or one pending because it sold out, is available again above 0; a staff hold
 * stays. Applies only while stock plus the units orders hold stays within MAX_STOCK (see `explainSetStock`).
 */
export const setStockVariants = (clock: Clock, petId: number, quantity: number, expectedRevision?: number): PetVariant[] => {
  const when = {
    lifecycle: "none",
    heldAtMost: MAX_STOCK - quantity,
    ...(expectedRevision !== undefined && { revision: expectedRevision }),
  } as const;
  const at = clock.now();
  const then: PetChange = { stock: { to: quantity }, events: [stockEvent(at, petId, { quantity })] };
  if (quantity === 0) return [{ when, then }];
  const toAvailable = (from: PetStatus): PetChange => ({
    ...then,
    status: "available",
    pendingCause: "none",
    events: [...(then.events ?? []), statusEvent(at, petId, from, "available")],
  });
  return [
    { when: { ...when, statusNot: "sold", soldOut: false }, then },
    { when: { ...when, status: "sold" }, then: toAvailable("sold") },
    { when: { ...when, soldOut: true }, then: toAvailable("pending") },
  ];
};

/** Why a stock setting of a visible pet did not apply, when it is the limit. */
export const stockLimitError = (pet: PetRecord, quantity: number): DomainError | undefined =>
  quantity + pet.heldUnits > MAX_STOCK
    ? new DomainError(
        "stock_limit_exceeded",
        `Pet ${pet.id} has ${pet.heldUnits} units held by orders; its stock can be set to at most ${MAX_STOCK - pet.heldUnits}`,
      )
    : undefined;
