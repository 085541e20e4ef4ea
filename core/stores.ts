import type { AdminGuard } from "./access/admin-guard.port.ts";
import type { ApiKeys } from "./access/api-keys.port.ts";
import type { Categories } from "./categories/categories.port.ts";
import type { EventLog } from "./events/event-log.port.ts";
import type { Outbox } from "./events/outbox.port.ts";
import type { IdempotencyRecords } from "./idempotency/idempotency-records.port.ts";
import type { Orders } from "./orders/orders.port.ts";
import type { Pets } from "./pets/pets.port.ts";
import type { RateLimiter } from "./rate-limiting/rate-limiter.port.ts";
import type { IdAllocator } from "./shared/id-allocator.port.ts";
import type { StoreHealth } from "./shared/store-health.port.ts";
import type { DeliveryAttempts } from "./webhooks/delivery-attempts.port.ts";
import type { WebhookMessages } from "./webhooks/webhook-messages.port.ts";
import type { WebhookSubscriptions } from "./webhooks/webhook-subscriptions.port.ts";

export interface Stores {
  pets: Pets;
  categories: Categories;
  orders: Orders;
  outbox: Outbox;
  eventLog: EventLog;
  ids: IdAllocator;
  apiKeys: ApiKeys;
  adminGuard: AdminGuard;
  limiter: RateLimiter;
  idempotency: IdempotencyRecords;
  health: StoreHealth;
  webhooks: WebhookSubscriptions;
  webhookMessages: WebhookMessages;
  deliveryAttempts: DeliveryAttempts;
  close(): Promise<void>;
}
