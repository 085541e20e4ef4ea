export type IdSequence = "pets" | "categories" | "orders" | "api-keys" | "webhooks";

/**
 * Positive and never handed out twice, even after a failed write; increasing on one instance, but not ordered in time
 * across instances (ids may be skipped).
 */
export interface IdAllocator {
  next(sequence: IdSequence): Promise<number>;
}
