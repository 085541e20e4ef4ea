/** The shapes of the service's answers and requests by name, as its OpenAPI documents call them. */
import type { components as admin } from "./generated/petstore-admin-api.js";
import type { components } from "./generated/petstore-api.js";

type S = components["schemas"];
type A = admin["schemas"];

export type Pet = S["Pet"];
export type NewPet = S["NewPet"];
export type PetStatus = S["PetStatus"];
export type Category = S["Category"];
export type NewCategory = S["NewCategory"];
export type Order = S["Order"];
export type NewOrder = S["NewOrder"];
/** An order answered with `expand=placement`: who placed it and when. */
export type PlacedOrder = S["PlacedOrder"];
export type OrderPlacement = S["OrderPlacement"];
export type OrderPlacer = S["OrderPlacer"];
export type InventoryItem = S["InventoryItem"];
/** The calling key (`GET /me`). */
export type Me = S["Me"];
export type ApiKey = A["ApiKey"];
export type NewApiKey = A["NewApiKey"];
export type IssuedApiKey = A["IssuedApiKey"];
export type Webhook = A["Webhook"];
export type NewWebhook = A["NewWebhook"];
export type IssuedWebhook = A["IssuedWebhook"];
export type WebhookEventType = A["WebhookEventType"];
export type WebhookDeliveryAttempt = A["WebhookDeliveryAttempt"];
