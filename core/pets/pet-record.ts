import type { OnlyKeysOf } from "../shared/only-keys-of.ts";
import type { Pet } from "./pet.ts";

/** Keyed by its order, so a stock move applies once: docs/consistency.md#marks-and-fences. */
export interface Mark {
  orderId: number;
  kind: "reserve" | "settle";
  units: number;
  since: Date;
  nonce?: string | undefined;
}

export type PendingCause = "sold-out" | "hold";

/** `creating` and `deleting` pets are invisible to reads, not to a category deletion's check. */
export interface PetRecord extends Pet {
  stock: number;
  holdCount: number;
  heldUnits: number;
  /** Set exactly while pending. */
  pendingCause: PendingCause | undefined;
  /** Ascending order id, reserve before settle. */
  marks: Mark[];
  fences: Readonly<Record<number, number>>;
  lifecycle: "creating" | "deleting" | undefined;
  /** The pet names `categoryId` until this move lands. */
  movingTo: number | undefined;
  /** Recovery's grace period runs from here. */
  provisionalSince: Date | undefined;
}

export type ListedPet = PetRecord;
export type WrittenPet = PetRecord;

export const FENCE_BUCKETS = 32;
export const fenceBucket = (orderId: number): number => orderId % FENCE_BUCKETS;
export const fenceOf = (pet: Pick<PetRecord, "fences"> | undefined, orderId: number): number =>
  pet?.fences[fenceBucket(orderId)] ?? 0;

export const markOf = (pet: PetRecord | undefined, orderId: number, kind: Mark["kind"]): Mark | undefined =>
  pet?.marks.find((m) => m.orderId === orderId && m.kind === kind);

export const isVisible = <P extends ListedPet>(pet: P | undefined): pet is P =>
  pet !== undefined && pet.lifecycle === undefined;

/** The record without its store-only fields. */
export const petOf = (record: PetRecord): Pet => {
  const { stock, holdCount, heldUnits, pendingCause, marks, fences, lifecycle, movingTo, provisionalSince, ...pet } =
    record;
  return pet satisfies OnlyKeysOf<Pet, typeof pet>;
};
