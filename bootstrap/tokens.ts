import type { ServiceIdentifier } from "inversify";
import type { H3 } from "h3";
import type { ApiKeys } from "../core/access/api-keys.port.ts";
import type { EnsureAdminKey } from "../core/access/ensure-admin-key.ts";
import type { Secrets } from "../core/access/secrets.port.ts";
import type { Clock } from "../core/shared/clock.port.ts";
import type { Stores } from "../core/stores.ts";
import type { UseCases } from "../adapters/http/use-cases.ts";
import type { Config } from "./config.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { Logger } from "./logger.ts";
import type { AddressResolver } from "../core/webhooks/address-resolver.port.ts";
import type { WebhookSender } from "../core/webhooks/webhook-sender.port.ts";
import type { WebhookSigner } from "../core/webhooks/webhook-signer.port.ts";
import type { WebhookWorker } from "./webhook-worker.ts";

const token = <T>(name: string): ServiceIdentifier<T> => Symbol(name) as ServiceIdentifier<T>;

/** The store's ports, one token each, bound from the opened stores. */
export type Ports = Omit<Stores, "close">;
export const ports: { readonly [K in keyof Ports]-?: ServiceIdentifier<Ports[K]> } = {
  pets: token("Pets"),
  categories: token("Categories"),
  orders: token("Orders"),
  outbox: token("Outbox"),
  eventLog: token("EventLog"),
  ids: token("IdAllocator"),
  apiKeys: token("ApiKeys"),
  adminGuard: token("AdminGuard"),
  limiter: token("RateLimiter"),
  idempotency: token("IdempotencyRecords"),
  health: token("StoreHealth"),
  webhooks: token("WebhookSubscriptions"),
  webhookMessages: token("WebhookMessages"),
  deliveryAttempts: token("DeliveryAttempts"),
};

/** One token per use case the HTTP adapter drives: the names and types are the adapter's `UseCases`. */
export const useCaseTokens: { readonly [K in keyof UseCases]-?: ServiceIdentifier<UseCases[K]> } = {
  listPets: token("ListPets"),
  getPet: token("GetPet"),
  createPet: token("CreatePet"),
  updatePet: token("UpdatePet"),
  deletePet: token("DeletePet"),
  listCategories: token("ListCategories"),
  getCategory: token("GetCategory"),
  createCategory: token("CreateCategory"),
  updateCategory: token("UpdateCategory"),
  deleteCategory: token("DeleteCategory"),
  placeOrder: token("PlaceOrder"),
  listOrders: token("ListOrders"),
  getOrder: token("GetOrder"),
  updateOrder: token("UpdateOrder"),
  cancelOrder: token("CancelOrder"),
  listInventory: token("ListInventory"),
  getInventoryItem: token("GetInventoryItem"),
  setInventory: token("SetInventory"),
  createApiKey: token("CreateApiKey"),
  listApiKeys: token("ListApiKeys"),
  getApiKey: token("GetApiKey"),
  getMe: token("GetMe"),
  followEvents: token("FollowEvents"),
  updateApiKey: token("UpdateApiKey"),
  revokeApiKey: token("RevokeApiKey"),
  unbanApiKey: token("UnbanApiKey"),
  admitRequest: token("AdmitRequest"),
  createWebhookSubscription: token("CreateWebhookSubscription"),
  listWebhookSubscriptions: token("ListWebhookSubscriptions"),
  getWebhookSubscription: token("GetWebhookSubscription"),
  deleteWebhookSubscription: token("DeleteWebhookSubscription"),
  rotateWebhookSecret: token("RotateWebhookSecret"),
  listWebhookDeliveries: token("ListWebhookDeliveries"),
  runIdempotently: token("RunIdempotently"),
};

/** Every service the container knows, typed. */
export const tokens = {
  config: token<Config>("Config"),
  logger: token<Logger>("Logger"),
  clock: token<Clock>("Clock"),
  secrets: token<Secrets>("Secrets"),
  stores: token<Stores>("Stores"),
  /** API keys as use cases read them: through a short-lived cache (revocation takes effect within its bound). */
  cachedApiKeys: token<ApiKeys>("CachedApiKeys"),
  ensureAdminKey: token<EnsureAdminKey>("EnsureAdminKey"),
  /** All of `useCaseTokens`, as the one object the HTTP adapter takes. */
  useCases: token<UseCases>("UseCases"),
  httpApp: token<H3>("HttpApp"),
  webhookSigner: token<WebhookSigner>("WebhookSigner"),
  addressResolver: token<AddressResolver>("AddressResolver"),
  webhookSender: token<WebhookSender>("WebhookSender"),
  webhookWorker: token<WebhookWorker>("WebhookWorker"),
  lifecycle: token<Lifecycle>("Lifecycle"),
} as const;
