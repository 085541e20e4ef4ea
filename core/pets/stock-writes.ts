import { stampEvent } from "../events/event-stamp.ts";
import type { Clock } from "../shared/clock.port.ts";
import { DomainError } from "../shared/domain-error.ts";
import { fenceOf, markOf, type ListedPet, type PetRecord } from "./pet-record.ts";
import type { PetStatus } from "./pet.ts";
import type { Consequence, MarkDrop, Pets, StatusChange, StockSetting } from "./pets.port.ts";
import { stockCases, withLikely, type StockCase, type StockState } from "./stock-rule.ts";

// What each stock write causes is decided here; when each case applies, in stock-rule.ts.

/** Stock plus held units never exceed it, so a cancellation can always give units back. */
export const MAX_STOCK = 1_000_000;

const statusEvent = (at: Date, petId: number, from: PetStatus, to: PetStatus) =>
  stampEvent(at, "pet.status_changed", { petId, from, to });
const stockEvent = (at: Date, petId: number, change: { delta: number } | { quantity: number }) =>
  stampEvent(at, "inventory.changed", { petId, ...change });
const AVAILABLE: StatusChange = { to: "available", cause: undefined };

export type ReserveOutcome = "reserved" | "already-held" | "unknown-pet" | "not-available" | "insufficient-stock";

export const foreseeReserve = (
  pet: ListedPet | undefined,
  units: number,
): Exclude<ReserveOutcome, "reserved" | "already-held"> | undefined => {
  if (!pet || pet.lifecycle !== undefined) return "unknown-pet";
  if (pet.status !== "available") return "not-available";
  if (pet.stock < units) return "insufficient-stock";
  return undefined;
};

/** Undefined: the reservation would apply now (the pet changed meanwhile), so retry. */
export const explainReserve = (
  pet: PetRecord | undefined,
  orderId: number,
  units: number,
): Exclude<ReserveOutcome, "reserved"> | undefined => {
  if (pet && pet.lifecycle === undefined && markOf(pet, orderId, "reserve")) return "already-held";
  return foreseeReserve(pet, units);
};

/** What a placer last saw of a pet: its stock, and its fences, which a reservation is conditional on. */
export type PetSight = Pick<PetRecord, "stock" | "fences">;

/**
 * `seen` unknown or stale costs a refused write and another try with the pet it returns, never a wrong answer:
 * docs/consistency.md#late-copies.
 */
export const reserveSeeing = async (
  pets: Pets,
  clock: Clock,
  petId: number,
  orderId: number,
  units: number,
  nonce: string,
  seen?: PetSight,
  drops: readonly MarkDrop[] = [],
): Promise<{ outcome: ReserveOutcome; pet: PetRecord | undefined; undropped: readonly MarkDrop[] }> => {
  const at = clock.now();
  const taken = stockEvent(at, petId, { delta: -units });
  const cases = stockCases.reserve(
    units,
    { events: [taken] },
    { status: { to: "pending", cause: "sold-out" }, events: [taken, statusEvent(at, petId, "available", "pending")] },
  );
  for (let sight = seen, left = drops; ;) {
    const fence = fenceOf(sight, orderId);
    // The case the stock last seen picks is tried first: a round trip saved when it holds.
    const likely = withLikely(cases, sight && { stock: sight.stock });
    const result = await pets.reserve({ petId, orderId, units, nonce, at, fence, drops: left, ...likely });
    if (result.applied) return { outcome: "reserved", pet: result.pet, undropped: [] };
    // A drop taken along whose mark went meanwhile (recovery, another instance's settlement) refuses the write too.
    left = stillThere(result.pet, left);
    const outcome = explainReserve(result.pet, orderId, units);
    if (outcome) return { outcome, pet: result.pet, undropped: left };
    sight = result.pet;
  }
};

/** The drops whose marks `pet` still has. */
export const stillThere = (pet: PetRecord | undefined, drops: readonly MarkDrop[]): readonly MarkDrop[] =>
  drops.filter((drop) => {
    const mark = markOf(pet, drop.orderId, drop.kind);
    return mark !== undefined && (drop.kind === "settle" || mark.nonce === drop.nonce);
  });

/** One write for the marks still there; the pet as it left it or found it. */
export const dropMarksSeeing = async (
  pets: Pets,
  petId: number,
  drops: readonly MarkDrop[],
): Promise<PetRecord | undefined> => {
  let pet: PetRecord | undefined;
  for (let left = drops; left.length > 0;) {
    const result = await pets.dropMarks({ petId, drops: left });
    pet = result.pet;
    if (result.applied) break;
    const there = stillThere(pet, left);
    // Refused only for a mark that went: nothing else is a condition, so the next try has fewer.
    if (there.length >= left.length) break;
    left = there;
  }
  return pet;
};

/** A staff hold stays pending when units come back. */
const unitsBack = (at: Date, petId: number, units: number): StockCase[] => {
  const back = stockEvent(at, petId, { delta: units });
  return stockCases.unitsBack(
    { status: AVAILABLE, events: [back, statusEvent(at, petId, "pending", "available")] },
    { events: [back] },
  );
};

export const postReservation = async (pets: Pets, petId: number, orderId: number, nonce: string): Promise<boolean> =>
  (await pets.postReservation({ petId, orderId, nonce })).applied;

/** The pet as the write left it (or found it): a placer's next sight of it. */
export const postReservationSeeing = async (
  pets: Pets,
  petId: number,
  orderId: number,
  nonce: string,
): Promise<PetRecord | undefined> => (await pets.postReservation({ petId, orderId, nonce })).pet;

export const voidReservation = async (
  pets: Pets,
  clock: Clock,
  petId: number,
  orderId: number,
  units: number,
  nonce: string | undefined,
): Promise<boolean> =>
  (await pets.voidReservation({ petId, orderId, nonce, units, cases: unitsBack(clock.now(), petId, units) })).applied;

export const applySettlement = async (
  pets: Pets,
  clock: Clock,
  how: "release" | "consume",
  order: { id: number; petId: number; quantity: number; reservation?: string | undefined },
  fence: number,
  seen?: StockState,
  keeping?: string,
): Promise<{ outcome: "applied" | "fence-moved" | "reserve-marked" | "no-pet"; pet: PetRecord | undefined }> => {
  const { id: orderId, petId, quantity: units, reservation } = order;
  const at = clock.now();
  const cases =
    how === "release"
      ? unitsBack(at, petId, units)
      : stockCases.consume(
          { status: { to: "sold", cause: undefined }, events: [statusEvent(at, petId, "pending", "sold")] },
          { events: [] },
        );
  const result = await pets.applySettlement({
    petId,
    orderId,
    units,
    at,
    fence,
    reservation,
    how,
    ...(keeping !== undefined && { drops: [{ orderId, kind: "reserve", nonce: keeping }] }),
    ...withLikely(cases, seen),
  });
  // This order's settle mark already there: another actor applied the settlement.
  if (result.applied || markOf(result.pet, orderId, "settle")) return { outcome: "applied", pet: result.pet };
  if (!result.pet) return { outcome: "no-pet", pet: undefined };
  const own = reservation !== undefined && markOf(result.pet, orderId, "reserve")?.nonce === reservation;
  return { outcome: own ? "reserve-marked" : "fence-moved", pet: result.pet };
};

/** The pet as the write left it (or found it). */
export const clearSettleMark = async (pets: Pets, petId: number, orderId: number): Promise<PetRecord | undefined> =>
  (await pets.clearSettleMark({ petId, orderId })).pet;

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
  const cases = stockCases.setStock(
    quantity,
    { events: [set] },
    { fromSold: toAvailable("sold"), fromSoldOut: toAvailable("pending") },
  );
  // Most settings change no status: the last case, the one without a boundary, first.
  return { petId, quantity, heldAtMost: MAX_STOCK - quantity, expectedRevision, cases, likely: cases.length - 1 };
};

export const stockLimitError = (pet: PetRecord, quantity: number): DomainError | undefined =>
  quantity + pet.heldUnits > MAX_STOCK
    ? new DomainError(
        "stock_limit_exceeded",
        `Pet ${pet.id} has ${pet.heldUnits} units held by orders; its stock can be set to at most ${MAX_STOCK - pet.heldUnits}`,
      )
    : undefined;
