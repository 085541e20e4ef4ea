import type { Pet } from "./pet.ts";

/**
 * A stock move in flight, keyed by its order, so it applies once (docs/consistency.md, "Marks and fences"). The
 * only per-order state a pet carries: its size follows the moves in flight, not its open orders.
 */
export interface Mark {
  orderId: number;
  kind: "reserve" | "settle";
  units: number;
  since: Date;
  /** A reservation's attempt: the order names the one it owns, so a redundant one is given back, never kept. */
  nonce?: string | undefined;
}

/** Why a pending pet is pending: it sold out while orders hold its units, or staff put it on hold (PRODUCT.md §4). */
export type PendingCause = "sold-out" | "hold";

/**
 * The pet aggregate as one stored document. `creating` and `deleting` pets are provisional: invisible to reads,
 * visible to a category deletion's reference check.
 */
export interface PetRecord extends Pet {
  stock: number;
  /** Orders whose units are taken and not yet released or consumed on the pet. */
  holdCount: number;
  heldUnits: number;
  /** Set exactly while the status is pending. */
  pendingCause: PendingCause | undefined;
  /** In ascending order id, reserve before settle. */
  marks: Mark[];
  /** Per bucket of order ids: how many settle marks were removed (see `fenceOf`). */
  fences: Readonly<Record<number, number>>;
  lifecycle: "creating" | "deleting" | undefined;
  /** A move to this category is under way; the pet still names `categoryId` until it is confirmed. */
  movingTo: number | undefined;
  /** When `lifecycle` or `movingTo` was set: recovery's grace period runs from here. */
  provisionalSince: Date | undefined;
}

/** A pet as reads and writes give it back: the whole (bounded) aggregate. */
export type ListedPet = PetRecord;
export type WrittenPet = PetRecord;

export const FENCE_BUCKETS = 32;
export const fenceBucket = (orderId: number): number => orderId % FENCE_BUCKETS;
/** The fence guarding settle writes of this order: it moves whenever a settle mark of its bucket is removed. */
export const fenceOf = (pet: PetRecord | undefined, orderId: number): number => pet?.fences[fenceBucket(orderId)] ?? 0;

export const markOf = (pet: PetRecord | undefined, orderId: number, kind: Mark["kind"]): Mark | undefined =>
  pet?.marks.find((m) => m.orderId === orderId && m.kind === kind);

export const isVisible = <P extends ListedPet>(pet: P | undefined): pet is P =>
  pet !== undefined && pet.lifecycle === undefined;

export const petOf = (record: Pet): Pet => ({
  id: record.id,
  name: record.name,
  categoryId: record.categoryId,
  status: record.status,
  revision: record.revision,
});
