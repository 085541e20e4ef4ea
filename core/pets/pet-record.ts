import type { Pet } from "./pet.ts";

/** Units an open order has taken from the pet's stock; one per order (design §1). */
export interface Hold {
  orderId: number;
  units: number;
  /** When the units were taken: a hold whose order never got written is released only after the grace period. */
  since?: Date | undefined;
}

/**
 * The whole pet aggregate as one stored document: the pet, its stock and the holds of its open orders, so every
 * stock change and the status change it causes are one write. `creating` and `deleting` pets are provisional:
 * invisible to reads and listings, visible to the reference check of a category's deletion.
 */
export interface PetRecord extends Pet {
  stock: number;
  /** In ascending order id. */
  holds: Hold[];
  lifecycle: "creating" | "deleting" | undefined;
  /** A move to this category is under way; the pet still names `categoryId` until it is confirmed. */
  movingTo: number | undefined;
  /** When `lifecycle` or `movingTo` was set: recovery's grace period runs from here. */
  provisionalSince: Date | undefined;
}

/**
 * A pet as a listing reads it: the aggregate without its holds. A popular pet may hold units for thousands of open
 * orders; a page of pets must not read them all back.
 */
export type ListedPet = Omit<PetRecord, "holds">;

/**
 * A pet as a write leaves it: the aggregate with the number of its holds, and of the holds only those of the orders
 * the write's variants name (their `hold`, `noHoldOf`, `addHold`, `removeHoldOf`). A write on a popular pet must not
 * carry all its open orders back: the checks after a write ask about one order, or whether any hold is left.
 */
export type WrittenPet = ListedPet & {
  holdCount: number;
  /** The holds of the orders the variants name, in ascending order id; never the pet's other holds. */
  namedHolds: Hold[];
};

export const isVisible = <P extends ListedPet>(pet: P | undefined): pet is P => pet !== undefined && pet.lifecycle === undefined;

export const petOf = (record: Pet): Pet => ({
  id: record.id,
  name: record.name,
  categoryId: record.categoryId,
  status: record.status,
  revision: record.revision,
});
