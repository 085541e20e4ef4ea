import { stampEvent } from "../events/event-stamp.ts";
import type { Clock } from "../shared/clock.port.ts";
import { DomainError } from "../shared/domain-error.ts";
import { markOf, type ListedPet, type PetRecord } from "./pet-record.ts";
import type { PetStatus } from "./pet.ts";
import type { Consequence, Pets, StatusChange, StockSetting, UnitsBack } from "./pets.port.ts";

/** The stock moves and the status changes they cause (PRODUCT.md §4), decided here once; each is one port write. */

/** The documented maximum of a pet's stock; stock plus the units orders hold never exceeds it. */
export const MAX_STOCK = 1_000_000;

const statusEvent = (at: Date, petId: number, from: PetStatus, to: PetStatus) =>
  stampEvent(at, "pet.status_changed", { petId, from, to });
const stockEvent = (at: Date, petId: number, change: { delta: number } | { quantity: number }) =>
  stampEvent(at, "inventory.changed", { petId, ...change });
const AVAILABLE: StatusChange = { to: "available", cause: undefined };

export type ReserveOutcome = "reserved" | "already-held" | "unknown-pet" | "not-available" | "insufficient-stock";

/** Why no reservation of `units` could apply for any order; undefined when one could. */
export const foreseeReserve = (
  pet: ListedPet | undefined,
  units: number,
): Exclude<ReserveOutcome, "reserved" | "already-held"> | undefined => {
  if (!pet || pet.lifecycle !== undefined) return "unknown-pet";
  if (pet.status !== "available") return "not-available";
  if (pet.stock < units) return "insufficient-stock";
  return undefined;
};

/** Why a reservation did not apply, or undefined when it would apply now (the pet changed meanwhile: retry). */
export const explainReserve = (
  pet: PetRecord | undefined,
  orderId: number,
  units: number,
): Exclude<ReserveOutcome, "reserved"> | undefined => {
  if (pet && pet.lifecycle === undefined && markOf(pet, orderId, "reserve")) return "already-held";
  return foreseeReserve(pet, units);
};

/** Takes `units` for the order under this attempt's `nonce`; the last units make the pet pending, sold out. */
export const reserveSeeing = async (
  pets: Pets,
  clock: Clock,
  petId: number,
  orderId: number,
  units: number,
  nonce: string,
  expectedStock?: number,
): Promise<{ outcome: ReserveOutcome; pet: PetRecord | undefined }> => {
  const at = clock.now();
  const taken = stockEvent(at, petId, { delta: -units });
  const reservation = {
    petId,
    orderId,
    units,
    nonce,
    at,
    unitsLeft: { events: [taken] },
    lastUnits: {
      status: { to: "pending", cause: "sold-out" },
      events: [taken, statusEvent(at, petId, "available", "pending")],
    },
    lastUnitsFirst: expectedStock === units,
  } as const;
  for (;;) {
    const result = await pets.reserve(reservation);
    if (result.applied) return { outcome: "reserved", pet: result.pet };
    const outcome = explainReserve(result.pet, orderId, units);
    if (outcome) return { outcome, pet: result.pet };
  }
};

/** Units back to stock: a pet pending because it sold out is available again; a staff hold stays. */
const unitsBack = (at: Date, petId: number, units: number): UnitsBack => {
  const back = stockEvent(at, petId, { delta: units });
  return {
    fromSoldOut: { status: AVAILABLE, events: [back, statusEvent(at, petId, "pending", "available")] },
    otherwise: { events: [back] },
  };
};

/** The order now owns the units its attempt reserved: the reserve mark goes. True when this call removed it. */
export const keepReservation = async (pets: Pets, petId: number, orderId: number, nonce: string): Promise<boolean> =>
  (await pets.keepReservation({ petId, orderId, nonce })).applied;

/** Undoes a reservation no order owns (a placing that died, or a redundant attempt): once, by its mark. */
export const undoReservation = async (
  pets: Pets,
  clock: Clock,
  petId: number,
  orderId: number,
  units: number,
  nonce: string | undefined,
): Promise<boolean> =>
  (await pets.undoReservation({ petId, orderId, nonce, units, ...unitsBack(clock.now(), petId, units) })).applied;

/** Settles a cancelled (release) or completed (consume) order on its pet once: the fence and the mark guard it. */
export const applySettlement = async (
  pets: Pets,
  clock: Clock,
  how: "release" | "consume",
  order: { id: number; petId: number; quantity: number },
  fence: number,
): Promise<{ outcome: "applied" | "fence-moved" | "no-pet"; pet: PetRecord | undefined }> => {
  const { id: orderId, petId, quantity: units } = order;
  const at = clock.now();
  const settling = { petId, orderId, units, at, fence };
  const result = await pets.applySettlement(
    how === "release"
      ? { ...settling, how, ...unitsBack(at, petId, units) }
      : // The last holding order of a sold-out pet completed at stock 0: the pet is sold.
        {
          ...settling,
          how,
          lastOfSoldOut: {
            status: { to: "sold", cause: undefined },
            events: [statusEvent(at, petId, "pending", "sold")],
          },
          otherwise: { events: [] },
        },
  );
  if (result.applied || markOf(result.pet, orderId, "settle")) return { outcome: "applied", pet: result.pet };
  return { outcome: result.pet ? "fence-moved" : "no-pet", pet: result.pet };
};

/** The order records its settlement: the settle mark goes, and the fence of its bucket moves on. */
export const clearSettleMark = async (pets: Pets, petId: number, orderId: number): Promise<void> => {
  await pets.clearSettleMark({ petId, orderId });
};

/** Staff set the stock: above 0, a sold or sold-out pet is available again; a staff hold stays. Within MAX_STOCK. */
export const stockSetting = (
  clock: Clock,
  petId: number,
  quantity: number,
  expectedRevision?: number,
): StockSetting => {
  const at = clock.now();
  const set = stockEvent(at, petId, { quantity });
  const toAvailable = (from: PetStatus): Consequence => ({
    status: AVAILABLE,
    events: [set, statusEvent(at, petId, from, "available")],
  });
  return {
    petId,
    quantity,
    heldAtMost: MAX_STOCK - quantity,
    expectedRevision,
    otherwise: { events: [set] },
    restock: quantity > 0 ? { fromSold: toAvailable("sold"), fromSoldOut: toAvailable("pending") } : undefined,
  };
};

/** Why a stock setting of a visible pet did not apply, when it is the limit. */
export const stockLimitError = (pet: PetRecord, quantity: number): DomainError | undefined =>
  quantity + pet.heldUnits > MAX_STOCK
    ? new DomainError(
        "stock_limit_exceeded",
        `Pet ${pet.id} has ${pet.heldUnits} units held by orders; its stock can be set to at most ${MAX_STOCK - pet.heldUnits}`,
      )
    : undefined;
