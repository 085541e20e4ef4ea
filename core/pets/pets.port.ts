import type { DomainEvent } from "../events/domain-event.ts";
import type { PageRequest } from "../shared/page.ts";
import type { PetStatus } from "./pet.ts";
import type { Mark, PendingCause, PetRecord } from "./pet-record.ts";

/** The orders of a pet listing: ascending id, descending id, or by name (its lower-cased key, then id). */
export const petSorts = ["id", "-id", "name"] as const;
export type PetSort = (typeof petSorts)[number];

/**
 * `after` is the id of the previous page's last pet in the listing's order: with `-id` the page has lower ids, and
 * with `name` it continues after (`afterName`, `after`), the last pet's name key and id (a keyset cursor).
 */
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

/** A condition on one pet document; every given part must hold. */
export interface PetCondition {
  /** "none": a visible pet. */
  lifecycle?: "creating" | "deleting" | "none";
  status?: PetStatus;
  statusNot?: PetStatus;
  /** Pending because it sold out (true), or anything else (false). */
  soldOut?: boolean;
  stock?: { eq: number } | { gt: number };
  holdCount?: { eq: number } | { gt: number };
  /** heldUnits is at most this. */
  heldAtMost?: number;
  /** This order has a mark of this kind (and this attempt's, when `nonce` is given). */
  mark?: { orderId: number; kind: Mark["kind"]; nonce?: string | undefined };
  noMark?: { orderId: number; kind: Mark["kind"] };
  /** The fence of this order's bucket still has this value (fenceOf). */
  fence?: { orderId: number; value: number };
  revision?: number;
  movingTo?: number | "none";
  /** Recovery's guard: the provisional state it inspected is still the same one. */
  provisionalSince?: Date;
}

/** What a write changes; `revision` always goes up by one. */
export interface PetChange {
  name?: string;
  categoryId?: number;
  status?: PetStatus;
  pendingCause?: PendingCause | "none";
  stock?: { to: number } | { by: number };
  /** Added to holdCount and heldUnits. */
  held?: { orders: number; units: number };
  addMark?: Mark;
  removeMark?: { orderId: number; kind: Mark["kind"] };
  /** Moves the fence of this order's bucket on by one. */
  bumpFence?: number;
  lifecycle?: "creating" | "deleting" | "none";
  movingTo?: number | "none";
  provisionalSince?: Date | "none";
  /** Appended to the pet's outbox in the same write. */
  events?: readonly DomainEvent[];
}

export interface PetVariant {
  when: PetCondition;
  then: PetChange;
}

export type PetWrite =
  | { applied: number; pet: PetRecord }
  /** No variant's condition held: the pet as it is now, or undefined when there is none. */
  | { applied: undefined; pet: PetRecord | undefined };

/**
 * The pet aggregate (pet, stock, hold counters, marks of moves in flight, outbox), one bounded document per pet. Every
 * state change is ONE conditional single-document write: `write` tries the variants in turn and applies the first
 * whose condition holds, check and change atomically. Variants must exclude each other.
 */
export interface Pets {
  /** Any pet, provisional ones included; undefined when there is none. */
  ofId(id: number): Promise<PetRecord | undefined>;
  /** Visible pets only, in the query's order (ascending id by default), at most `limit` items. */
  list(query: PetQuery): Promise<PetRecord[]>;
  insert(pet: PetRecord): Promise<void>;
  write(id: number, variants: readonly PetVariant[]): Promise<PetWrite>;
  /** Deletes the pet only while the condition holds. */
  removeIf(id: number, when: PetCondition): Promise<boolean>;
  /** Whether any pet, provisional or not, names the category or is moving to it. */
  anyNaming(categoryId: number): Promise<boolean>;
  /** Pets with a lifecycle or a move under way (recovery's work list), ascending id. */
  provisional(page: PageRequest): Promise<PetRecord[]>;
  /** Pets with marks (moves in flight), ascending id after `after`: recovery's other work list. */
  withMarks(page: PageRequest): Promise<PetRecord[]>;
}
