/** The events a subscription can ask for (PRODUCT.md §7). */
export const webhookEventTypes = [
  "order.placed",
  "order.completed",
  "order.cancelled",
  "pet.status_changed",
  "inventory.changed",
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

export const isWebhookEventType = (type: string): type is WebhookEventType =>
  (webhookEventTypes as readonly string[]).includes(type);
