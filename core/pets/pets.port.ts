import type { DomainEvent } from "../events/domain-event.ts";
import type { PageRequest } from "../shared/page.ts";
import type { PetStatus } from "./pet.ts";
import type { PendingCause, PetRecord } from "./pet-record.ts";

/** The orders of a pet listing: ascending id, descending id, or by name (its lower-cased key, then id). */
export const petSorts = ["id", "-id", "name"] as const;
export type PetSort = (typeof petSorts)[number];

/** `after` is the previous page's last id in the listing's order; with `name`, (`afterName`, `after`) is the cursor. */
export interface PetQuery extends PageRequest {
  statuses?: readonly PetStatus[] | undefined;
  categoryId?: number | undefined;
  ids?: readonly number[] | undefined;
  /** Only pets whose name key (nameKeyOf) starts with this one. */
  namePrefix?: string | undefined;
  /** `id` when absent. */
  sort?: PetSort | undefined;
  /** With the `name` sort: the previous page's last name key. */
  afterName?: string | undefined;
}

/** A status and its pending cause, as core decided them (PRODUCT.md §4); the cause is set exactly while pending. */
export interface StatusChange {
  to: PetStatus;
  cause: PendingCause | undefined;
}

/** What a write causes besides its own change: core decides it; the store appends the events in the same write. */
export interface Consequence {
  status?: StatusChange | undefined;
  events: readonly DomainEvent[];
}

/** The outcome of every conditional write: the pet afterwards, or, refused, the pet as it is (undefined: none). */
export type PetWrite = { applied: true; pet: PetRecord } | { applied: false; pet: PetRecord | undefined };

export interface Reservation {
  petId: number;
  orderId: number;
  units: number;
  /** This attempt's: the reserve mark carries it, and the order names the one it owns. */
  nonce: string;
  at: Date;
  /** When units remain after it. */
  unitsLeft: Consequence;
  /** When it takes the last units. */
  lastUnits: Consequence;
  /** Try the last-units case first (this instance expects the stock to be exactly `units`). */
  lastUnitsFirst?: boolean | undefined;
}

/** Units going back to stock: the consequence depends on whether the pet is pending because it sold out. */
export interface UnitsBack {
  fromSoldOut: Consequence;
  otherwise: Consequence;
}

export type Settlement = { petId: number; orderId: number; units: number; at: Date; fence: number } & (
  | ({ how: "release" } & UnitsBack)
  | {
      how: "consume";
      /** The pet sold out, its stock is 0 and this is the only order holding units of it. */
      lastOfSoldOut: Consequence;
      otherwise: Consequence;
    }
);

export interface StockSetting {
  petId: number;
  quantity: number;
  /** The write applies only while the units orders hold are at most this (the stock limit). */
  heldAtMost: number;
  expectedRevision?: number | undefined;
  otherwise: Consequence;
  /** Given, a sold pet or one pending because it sold out gets these instead. */
  restock?: { fromSold: Consequence; fromSoldOut: Consequence } | undefined;
}

export interface Edit {
  petId: number;
  name: string;
  /** The status the edit was checked against: it applies only while the pet still has it. */
  checkedStatus: PetStatus;
  expectedRevision?: number | undefined;
  /** Absent: status and pending cause stay. */
  status?: StatusChange | undefined;
  events: readonly DomainEvent[];
}

/**
 * The pet aggregate, one bounded document per pet. Each write is ONE conditional single-document write (its facts
 * and effects: test/contracts/pets.contract.ts), so no transaction is needed (docs/decisions/pet-port-named-writes.md).
 */
export interface Pets {
  /** Any pet, provisional ones included; undefined when there is none. */
  ofId(id: number): Promise<PetRecord | undefined>;
  /** Visible pets only, in the query's order (ascending id by default), at most `limit` items. */
  list(query: PetQuery): Promise<PetRecord[]>;
  insert(pet: PetRecord): Promise<void>;

  /** A visible, available pet without this order's reserve mark, with at least `units` in stock: takes them. */
  reserve(reservation: Reservation): Promise<PetWrite>;
  /** The reserve mark of this attempt's nonce goes: the order owns the units. */
  keepReservation(keep: { petId: number; orderId: number; nonce: string }): Promise<PetWrite>;
  /** The reserve mark (of this nonce, when given) goes and its units return. */
  undoReservation(
    undo: { petId: number; orderId: number; nonce: string | undefined; units: number } & UnitsBack,
  ): Promise<PetWrite>;
  /** No settle mark of this order, and its fence still `fence`: the units leave the holds, a settle mark is left. */
  applySettlement(settlement: Settlement): Promise<PetWrite>;
  /** The settle mark goes, and the fence of its bucket moves on. */
  clearSettleMark(clear: { petId: number; orderId: number }): Promise<PetWrite>;
  /** A visible pet (of this revision, when given): its stock is set. */
  setStock(setting: StockSetting): Promise<PetWrite>;
  /** A visible pet still of `checkedStatus` (and revision): name and status change. */
  edit(edit: Edit): Promise<PetWrite>;
  /** A visible pet of this revision starts moving to a category. */
  beginMove(move: { petId: number; to: number; since: Date; expectedRevision: number }): Promise<PetWrite>;
  /** The move begun at `since` lands, with the edit it carries. */
  finishMove(move: Omit<Edit, "expectedRevision"> & { to: number; since: Date }): Promise<PetWrite>;
  /** The move begun at `since` is undone. */
  undoMove(move: { petId: number; to: number; since: Date }): Promise<PetWrite>;
  /** A creating pet becomes visible. */
  finishCreating(petId: number): Promise<PetWrite>;
  /** A visible pet no order holds units of (of this revision, when given) starts being deleted. */
  beginDeleting(deleting: { petId: number; since: Date; expectedRevision?: number | undefined }): Promise<PetWrite>;
  /** Removes a pet being created (since `since`, when given); true when this call removed it. */
  removeCreating(petId: number, since?: Date): Promise<boolean>;
  /** Removes a pet being deleted; true when this call removed it. */
  removeDeleting(petId: number): Promise<boolean>;

  /** Whether any pet, provisional or not, names the category or is moving to it. */
  anyNaming(categoryId: number): Promise<boolean>;
  /** Pets with a lifecycle or a move under way (recovery's work list), ascending id. */
  provisional(page: PageRequest): Promise<PetRecord[]>;
  /** Pets with marks (moves in flight), ascending id after `after`: recovery's other work list. */
  withMarks(page: PageRequest): Promise<PetRecord[]>;
}
