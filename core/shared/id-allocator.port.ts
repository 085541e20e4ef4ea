export type IdSequence = "pets" | "categories" | "orders" | "api-keys" | "webhooks";

/** Positive ids from 1 per sequence, strictly increasing, never handed out twice (not even after a failed write). */
export interface IdAllocator {
  next(sequence: IdSequence): Promise<number>;
}
