import type { ServiceIdentifier } from "inversify";
import type { H3 } from "h3";
import type { ApiKeys } from "../core/access/api-keys.port.ts";
import type { BanPolicy } from "../core/rate-limiting/ban-policy.ts";
import type { EnsureAdminKey } from "../core/access/ensure-admin-key.ts";
import type { Secrets } from "../core/access/secrets.port.ts";
import type { Clock } from "../core/shared/clock.port.ts";
import type { Stores } from "../core/stores.ts";
import { useCaseFactories, type UseCases } from "../adapters/http/use-cases.ts";
import type { Config } from "./config.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { Logger } from "./logger.ts";
import type { AddressResolver } from "../core/webhooks/address-resolver.port.ts";
import type { WebhookSender } from "../core/webhooks/webhook-sender.port.ts";
import type { WebhookSigner } from "../core/webhooks/webhook-signer.port.ts";
import type { WebhookWorker } from "./webhook-worker.ts";
import type { MarkDrops } from "../core/orders/mark-drops.ts";
import type { StockHints } from "../core/orders/stock-hints.ts";

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

/** One token per use case the HTTP adapter drives, named after its entry in `useCaseFactories`. */
export const useCaseTokens = Object.fromEntries(Object.keys(useCaseFactories).map((name) => [name, token(name)])) as {
  readonly [K in keyof UseCases]: ServiceIdentifier<UseCases[K]>;
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
  banPolicy: token<BanPolicy>("BanPolicy"),
  webhookTargets: token<{ allowPrivateTargets: boolean }>("WebhookTargets"),
  stockHints: token<StockHints>("StockHints"),
  markDrops: token<MarkDrops>("MarkDrops"),
  /** All of `useCaseTokens`, as the one object the HTTP adapter takes. */
  useCases: token<UseCases>("UseCases"),
  httpApp: token<H3>("HttpApp"),
  webhookSigner: token<WebhookSigner>("WebhookSigner"),
  addressResolver: token<AddressResolver>("AddressResolver"),
  webhookSender: token<WebhookSender>("WebhookSender"),
  webhookWorker: token<WebhookWorker>("WebhookWorker"),
  lifecycle: token<Lifecycle>("Lifecycle"),
} as const;
