import type { Stores } from "../../core/stores.ts";
import { MemoryAdminGuard } from "./memory-admin-guard.ts";
import { MemoryApiKeys } from "./memory-api-keys.repository.ts";
import { MemoryCategories } from "./memory-categories.repository.ts";
import { MemoryEventLog, memoryLogOrigin } from "./memory-event-log.ts";
import { MemoryIdAllocator } from "./memory-id-allocator.ts";
import { MemoryIdempotencyRecords } from "./memory-idempotency-records.ts";
import { MemoryOrders } from "./memory-orders.repository.ts";
import { MemoryOutbox } from "./memory-outbox.ts";
import { MemoryPets } from "./memory-pets.repository.ts";
import { MemoryRateLimiter } from "./memory-rate-limiter.ts";
import { MemoryStoreHealth } from "./memory-store-health.ts";
import { MemoryDeliveryAttempts } from "./memory-delivery-attempts.ts";
import { MemoryWebhookMessages } from "./memory-webhook-messages.ts";
import { MemoryWebhookSubscriptions } from "./memory-webhook-subscriptions.repository.ts";

/**
 * Every port in process memory: one process, nothing survives a restart. `eventLogOrigin`: where the event log's
 * positions start (memoryLogOrigin by default).
 */
export const createMemoryStores = (options: { eventLogOrigin?: number } = {}): Stores => {
  const pets = new MemoryPets();
  const orders = new MemoryOrders();
  return {
    pets,
    categories: new MemoryCategories(),
    orders,
    outbox: new MemoryOutbox(pets, orders),
    eventLog: new MemoryEventLog({ origin: options.eventLogOrigin ?? memoryLogOrigin() }),
    ids: new MemoryIdAllocator(),
    apiKeys: new MemoryApiKeys(),
    adminGuard: new MemoryAdminGuard(),
    limiter: new MemoryRateLimiter(),
    idempotency: new MemoryIdempotencyRecords(),
    health: new MemoryStoreHealth(),
    webhooks: new MemoryWebhookSubscriptions(),
    webhookMessages: new MemoryWebhookMessages(),
    deliveryAttempts: new MemoryDeliveryAttempts(),
    close: async () => {},
  };
};
