import type { DomainEvent } from "../events/domain-event.ts";
import type { PageRequest } from "../shared/page.ts";
import type { PetStatus } from "./pet.ts";
import type { Hold, ListedPet, PetRecord, WrittenPet } from "./pet-record.ts";

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
  stock?: { eq: number } | { gt: number };
  /** This order holds exactly these units. */
  hold?: Hold;
  /** This order holds nothing. */
  noHoldOf?: number;
  holdCount?: { eq: number } | { gt: number };
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
  stock?: { to: number } | { by: number };
  addHold?: Hold;
  removeHoldOf?: number;
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

/** The orders whose holds a write's variants name (conditions and changes), ascending: what its result carries. */
export const namedOrders = (variants: readonly PetVariant[]): number[] => {
  const ids = new Set<number>();
  for (const { when, then } of variants) {
    if (when.hold) ids.add(when.hold.orderId);
    if (when.noHoldOf !== undefined) ids.add(when.noHoldOf);
    if (then.addHold) ids.add(then.addHold.orderId);
    if (then.removeHoldOf !== undefined) ids.add(then.removeHoldOf);
  }
  return [...ids].sort((a, b) => a - b);
};

/** The pet in a write's result: see WrittenPet (holdCount, and the holds of the orders the variants name only). */
export type PetWrite =
  | { applied: number; pet: WrittenPet }
  /** No variant's condition held: the pet as it is now, or undefined when there is none. */
  | { applied: undefined; pet: WrittenPet | undefined };

/**
 * The pet aggregate (pet, stock, holds, outbox), one document per pet. Every state change is ONE conditional
 * single-document write: `write` tries the variants in turn and applies the first whose condition holds, check
 * and change atomically. Variants must exclude each other, so whichever one applies was right at that instant.
 */
export interface Pets {
  /**
   * Any pet, provisional ones included, without its holds (a popular pet's open orders are not read back by every
   * look at it: recovery's pages have them); undefined when there is none.
   */
  ofId(id: number): Promise<ListedPet | undefined>;
  /** Visible pets only, in the query's order (ascending id by default), at most `limit` items; without their holds. */
  list(query: PetQuery): Promise<ListedPet[]>;
  insert(pet: PetRecord): Promise<void>;
  /** The result's pet has the holds of `namedOrders(variants)` only, and their count (WrittenPet). */
  write(id: number, variants: readonly PetVariant[]): Promise<PetWrite>;
  /** Deletes the pet only while the condition holds. */
  removeIf(id: number, when: PetCondition): Promise<boolean>;
  /** Whether any pet, provisional or not, names the category or is moving to it. */
  anyNaming(categoryId: number): Promise<boolean>;
  /** Pets with a lifecycle or a move under way (recovery's work list), ascending id. */
  provisional(page: PageRequest): Promise<PetRecord[]>;
  /** Pets holding units for orders, ascending id after `after`. */
  withHolds(page: PageRequest): Promise<PetRecord[]>;
}
