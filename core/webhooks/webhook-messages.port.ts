import type { Lease, Settlement, WebhookMessage } from "./webhook-message.ts";

export interface WebhookMessages {
  /** Leaves a message whose id exists as it is. */
  enqueue(messages: readonly WebhookMessage[]): Promise<void>;
  /** One conditional write each, so exactly one instance gets a given message. */
  claimDue(now: Date, lease: Lease, limit: number): Promise<WebhookMessage[]>;
  /** Only while `owner` still holds the lease; false otherwise. */
  settle(id: string, owner: string, settlement: Settlement): Promise<boolean>;
  /** In one round trip where the store can; answers how many `owner` still held. */
  settleAll(owner: string, settlements: readonly { id: string; settlement: Settlement }[]): Promise<number>;
  ofId(id: string): Promise<WebhookMessage | undefined>;
  removeForSubscription(subscriptionId: number): Promise<void>;
  /** Pending messages, counted up to `limit`, and the oldest one's `createdAt`. */
  backlog(limit: number): Promise<{ count: number; oldestCreatedAt: Date | undefined }>;
}
