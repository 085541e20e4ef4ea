import type { DeliveryAttempt } from "./delivery-attempt.ts";

/** The recent-attempts log: bounded (by age in the store, by `limit` when read). */
export interface DeliveryAttempts {
  record(attempt: DeliveryAttempt): Promise<void>;
  /** `record` for each, in one round trip where the store can. */
  recordAll(attempts: readonly DeliveryAttempt[]): Promise<void>;
  /** Newest first, at most `limit`. */
  recent(subscriptionId: number, limit: number): Promise<DeliveryAttempt[]>;
  removeForSubscription(subscriptionId: number): Promise<void>;
}
