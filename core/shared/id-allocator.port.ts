export type IdSequence = "pets" | "categories" | "orders" | "api-keys" | "webhooks";

/** Increasing, never handed out twice, even after a failed write. */
export interface IdAllocator {
  next(sequence: IdSequence): Promise<number>;
}
