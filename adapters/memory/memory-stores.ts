import type { Stores } from "../../core/stores.ts";
import { MemoryAdminGuard } from "./memory-admin-guard.ts";
import { MemoryApiKeys } from "./memory-api-keys.repository.ts";
import { MemoryCategories } from "./memory-categories.repository.ts";
import { MemoryIdAllocator } from "./memory-id-allocator.ts";
import { MemoryIdempotencyRecords } from "./memory-idempotency-records.ts";
import { MemoryInventory } from "./memory-inventory.repository.ts";
import { MemoryOrders } from "./memory-orders.repository.ts";
import { MemoryPets } from "./memory-pets.repository.ts";
import { MemoryRateLimiter } from "./memory-rate-limiter.ts";
import { MemoryStoreHealth } from "./memory-store-health.ts";
import { MemoryDeliveryAttempts } from "./memory-delivery-attempts.ts";
import { MemoryWebhookMessages } from "./memory-webhook-messages.ts";
import { MemoryWebhookSubscriptions } from "./memory-webhook-subscriptions.repository.ts";

/** Every port in process memory: one process, nothing survives a restart. */
export const createMemoryStores = (): Stores => ({
  pets: new MemoryPets(),
  categories: new MemoryCategories(),
  orders: new MemoryOrders(),
  inventory: new MemoryInventory(),
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
});
