import type { DeliveryAttempt } from "./delivery-attempt.ts";

/** Bounded by age in the store. */
export interface DeliveryAttempts {
  record(attempt: DeliveryAttempt): Promise<void>;
  /** In one round trip where the store can. */
  recordAll(attempts: readonly DeliveryAttempt[]): Promise<void>;
  /** Newest first. */
  recent(subscriptionId: number, limit: number): Promise<DeliveryAttempt[]>;
  removeForSubscription(subscriptionId: number): Promise<void>;
}
