import type { DomainEvent } from "../events/domain-event.ts";
import type { PageRequest } from "../shared/page.ts";
import type { NewPet, PetStatus } from "./pet.ts";
import type { PendingCause, PetRecord } from "./pet-record.ts";
import type { StockCases } from "./stock-rule.ts";

export const petSorts = ["id", "-id", "name"] as const;
export type PetSort = (typeof petSorts)[number];

export interface PetQuery extends PageRequest {
  statuses?: readonly PetStatus[] | undefined;
  categoryId?: number | undefined;
  ids?: readonly number[] | undefined;
  namePrefix?: string | undefined;
  /** `name`: by nameOrderKeyOf, then id. */
  sort?: PetSort | undefined;
  /** With sort=name: the previous page's last nameOrderKeyOf. */
  afterName?: string | undefined;
}

export interface StatusChange {
  to: PetStatus;
  cause: PendingCause | undefined;
}

/** Decided by core, applied with its events in the same write. */
export interface Consequence {
  status?: StatusChange | undefined;
  events: readonly DomainEvent[];
}

/** Refused: the pet as it is, if any, so core can explain why. */
export type PetWrite = { applied: true; pet: PetRecord } | { applied: false; pet: PetRecord | undefined };

/** Each stock write carries core's whole case table (stock-rule.ts), which the store translates. */
export interface Reservation extends StockCases {
  petId: number;
  orderId: number;
  units: number;
  nonce: string;
  at: Date;
  /**
   * The fence of the order's bucket as the placer last saw it, a condition: a copy of this write landing after the
   * reservation was kept or undone (which moves that fence) is refused.
   */
  fence: number;
  /** Marks dropped by the same write, as `dropMarks` drops them: the write applies only while each is there. */
  drops?: readonly MarkDrop[] | undefined;
}

/**
 * A mark an instance drops after the write that made it droppable, on its next write to the pet or by itself: a
 * posted reservation's (by its nonce) or a finished settlement's (docs/consistency.md#mark-drops-that-ride).
 */
export type MarkDrop = { orderId: number; kind: "reserve"; nonce: string } | { orderId: number; kind: "settle" };
export type MarksDropped = { petId: number; drops: readonly MarkDrop[] };

export type Settlement = {
  petId: number;
  orderId: number;
  units: number;
  at: Date;
  fence: number;
  /** The order's own reservation (its nonce): refused while its reserve mark is there, unless `drops` drops it. */
  reservation?: string | undefined;
  /** Marks dropped by the same write, as `dropMarks` drops them: the order's own reserve mark kept by this write. */
  drops?: readonly MarkDrop[] | undefined;
  /** A release gives the units back to stock; a consumption only takes them out of the holds. */
  how: "release" | "consume";
} & StockCases;

export interface StockSetting extends StockCases {
  petId: number;
  quantity: number;
  /** Applies only while the held units are at most this (the stock limit). */
  heldAtMost: number;
  expectedRevision?: number | undefined;
}

/** An optional field left out is removed. */
export type PetFields = Omit<NewPet, "categoryId" | "status">;

export interface Edit {
  petId: number;
  fields: PetFields;
  checkedStatus: PetStatus;
  expectedRevision?: number | undefined;
  status?: StatusChange | undefined;
  events: readonly DomainEvent[];
}

export type ReservationPosted = { petId: number; orderId: number; nonce: string };
export type ReservationVoided = {
  petId: number;
  orderId: number;
  nonce: string | undefined;
  units: number;
} & StockCases;
export type SettleMarkCleared = { petId: number; orderId: number };
export type MoveStart = { petId: number; to: number; since: Date; expectedRevision: number };
export type MoveFinish = Omit<Edit, "expectedRevision"> & { to: number; since: Date };
export type MoveUndone = { petId: number; to: number; since: Date };
export type DeletingStart = { petId: number; since: Date; expectedRevision?: number | undefined };

/** Conditional single-document writes: docs/decisions/pet-port-named-writes.md. */
export interface Pets {
  /** Provisional pets too. */
  ofId(id: number): Promise<PetRecord | undefined>;
  /** Visible pets only. */
  list(query: PetQuery): Promise<PetRecord[]>;
  insert(pet: PetRecord): Promise<void>;

  // A reservation's life in two-phase words (docs/consistency.md#glossary): reserve makes it pending; post keeps its
  // units with the order that owns it; void gives them back. Post and void drop the reserve mark and move the fence.
  /** Only a visible, available pet with `units` in stock, without this order's reserve mark, at `fence`. */
  reserve(reservation: Reservation): Promise<PetWrite>;
  postReservation(post: ReservationPosted): Promise<PetWrite>;
  voidReservation(reservation: ReservationVoided): Promise<PetWrite>;
  /** Only without this order's settle mark or its own reserve mark, and at `fence`; leaves the settle mark. */
  applySettlement(settlement: Settlement): Promise<PetWrite>;
  /** Also moves the fence of the order's bucket on. */
  clearSettleMark(clear: SettleMarkCleared): Promise<PetWrite>;
  /** Only while every one of the marks is there; each moves the fence of its order's bucket on. */
  dropMarks(dropped: MarksDropped): Promise<PetWrite>;
  setStock(setting: StockSetting): Promise<PetWrite>;
  /** Only while the pet still has `checkedStatus`. */
  edit(edit: Edit): Promise<PetWrite>;
  beginMove(move: MoveStart): Promise<PetWrite>;
  finishMove(move: MoveFinish): Promise<PetWrite>;
  undoMove(move: MoveUndone): Promise<PetWrite>;
  finishCreating(petId: number): Promise<PetWrite>;
  /** Only while no order holds units of the pet. */
  beginDeleting(deleting: DeletingStart): Promise<PetWrite>;
  // True when this call removed the pet.
  removeCreating(petId: number, since?: Date): Promise<boolean>;
  removeDeleting(petId: number): Promise<boolean>;

  /** Provisional pets and moves into the category count. */
  anyNaming(categoryId: number): Promise<boolean>;
  provisional(page: PageRequest): Promise<PetRecord[]>;
  withMarks(page: PageRequest): Promise<PetRecord[]>;
}
