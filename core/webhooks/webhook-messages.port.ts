import type { Lease, Settlement, WebhookMessage } from "./webhook-message.ts";

export interface WebhookMessages {
  /** Stores each message unless one with its id exists (then it is left as it is). */
  enqueue(messages: readonly WebhookMessage[]): Promise<void>;
  /** Claims due messages with one conditional write each, so exactly one instance gets a given message. */
  claimDue(now: Date, lease: Lease, limit: number): Promise<WebhookMessage[]>;
  /** Records the outcome and drops the lease, only while `owner` still holds it; false otherwise. */
  settle(id: string, owner: string, settlement: Settlement): Promise<boolean>;
  /** `settle` for each, in one round trip where the store can; answers how many `owner` still held. */
  settleAll(owner: string, settlements: readonly { id: string; settlement: Settlement }[]): Promise<number>;
  ofId(id: string): Promise<WebhookMessage | undefined>;
  /** Deletes the messages of a subscription that is gone. */
  removeForSubscription(subscriptionId: number): Promise<void>;
}
