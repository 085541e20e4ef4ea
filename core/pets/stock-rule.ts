import type { PetStatus } from "./pet.ts";
import type { PendingCause, PetRecord } from "./pet-record.ts";
import type { Consequence } from "./pets.port.ts";

// PRODUCT.md §4's stock rule as data, so no store decides a boundary of its own.

export type Bound = { eq: number } | { gt: number };

/** Facts about a pet, all of which must hold; `{}` always holds. */
export interface StockFacts {
  stock?: Bound;
  holdCount?: Bound;
  status?: PetStatus;
  pendingCause?: PendingCause;
}

/** In order: the first case whose facts hold applies; none holding refuses the write. */
export interface StockCase {
  when: StockFacts;
  then: Consequence;
}

/** A fact left out (a guess about a pet) satisfies no condition on it. */
export type StockState = Pick<PetRecord, "stock"> & Partial<Pick<PetRecord, "holdCount" | "status" | "pendingCause">>;

const within = (value: number | undefined, bound: Bound | undefined): boolean =>
  bound === undefined || (value !== undefined && ("eq" in bound ? value === bound.eq : value > bound.gt));

export const holds = (when: StockFacts, pet: StockState): boolean =>
  Object.values({
    stock: within(pet.stock, when.stock),
    holdCount: within(pet.holdCount, when.holdCount),
    status: when.status === undefined || pet.status === when.status,
    pendingCause: when.pendingCause === undefined || pet.pendingCause === when.pendingCause,
  } satisfies Record<keyof StockFacts, boolean>).every(Boolean);

export const caseFor = (cases: readonly StockCase[], pet: StockState): StockCase | undefined =>
  cases.find((c) => holds(c.when, pet));

/** Pending for want of stock: units coming back end it, a staff hold stays. */
export const soldOut: StockFacts = { pendingCause: "sold-out" };
/** What a sold-out pet has. */
export const soldOutStock: StockFacts = { stock: { eq: 0 }, holdCount: { gt: 0 } };
export const soldStock: StockFacts = { stock: { eq: 0 }, holdCount: { eq: 0 } };
const always: StockFacts = {};

/**
 * A stock write's case table as core hands it to a store: the first case whose facts hold applies, none refuses the
 * write. `likely` (an index) is tried first: core's guess from its last sight of the pet, never a condition.
 */
export interface StockCases {
  cases: readonly StockCase[];
  likely?: number | undefined;
}

/** The table, with the case `seen` would take as the likely one. */
export const withLikely = (cases: readonly StockCase[], seen?: StockState): StockCases => {
  const at = seen === undefined ? -1 : cases.findIndex((c) => holds(c.when, seen));
  return at < 0 ? { cases } : { cases, likely: at };
};

export const stockCases = {
  reserve: (units: number, unitsLeft: Consequence, lastUnits: Consequence): StockCase[] => [
    { when: { stock: { gt: units } }, then: unitsLeft },
    { when: { stock: { eq: units } }, then: lastUnits },
  ],
  /** A release or an undone reservation. */
  unitsBack: (fromSoldOut: Consequence, otherwise: Consequence): StockCase[] => [
    { when: soldOut, then: fromSoldOut },
    { when: always, then: otherwise },
  ],
  consume: (lastOfSoldOut: Consequence, otherwise: Consequence): StockCase[] => [
    { when: { ...soldOut, stock: { eq: 0 }, holdCount: { eq: 1 } }, then: lastOfSoldOut },
    { when: always, then: otherwise },
  ],
  setStock: (
    quantity: number,
    otherwise: Consequence,
    restock?: { fromSold: Consequence; fromSoldOut: Consequence },
  ): StockCase[] => [
    ...(restock && quantity > 0
      ? [
          { when: { status: "sold" } as const, then: restock.fromSold },
          { when: soldOut, then: restock.fromSoldOut },
        ]
      : []),
    { when: always, then: otherwise },
  ],
};
