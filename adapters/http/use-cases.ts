import { AdmitRequest } from "../../core/rate-limiting/admit-request.ts";
import { CheckKeyStanding } from "../../core/access/check-key-standing.ts";
import { CancelOrder } from "../../core/orders/cancel-order.ts";
import { CreateApiKey } from "../../core/access/create-api-key.ts";
import { CreateCategory } from "../../core/categories/create-category.ts";
import { CreatePet } from "../../core/pets/create-pet.ts";
import { CreateWebhookSubscription } from "../../core/webhooks/create-webhook-subscription.ts";
import { DeleteCategory } from "../../core/categories/delete-category.ts";
import { DeletePet } from "../../core/pets/delete-pet.ts";
import { DeleteWebhookSubscription } from "../../core/webhooks/delete-webhook-subscription.ts";
import { DescribePlacements } from "../../core/orders/describe-placements.ts";
import { FollowEvents } from "../../core/events/follow-events.ts";
import { GetApiKey } from "../../core/access/get-api-key.ts";
import { GetCategory } from "../../core/categories/get-category.ts";
import { GetInventoryItem } from "../../core/inventory/get-inventory-item.ts";
import { GetMe } from "../../core/access/get-me.ts";
import { GetOrder } from "../../core/orders/get-order.ts";
import { GetPet } from "../../core/pets/get-pet.ts";
import { GetWebhookSubscription } from "../../core/webhooks/get-webhook-subscription.ts";
import { ListApiKeys } from "../../core/access/list-api-keys.ts";
import { ListCategories } from "../../core/categories/list-categories.ts";
import { ListInventory } from "../../core/inventory/list-inventory.ts";
import { ListOrders } from "../../core/orders/list-orders.ts";
import { ListPets } from "../../core/pets/list-pets.ts";
import { ListWebhookDeliveries } from "../../core/webhooks/list-webhook-deliveries.ts";
import { ListWebhookSubscriptions } from "../../core/webhooks/list-webhook-subscriptions.ts";
import { PlaceOrder } from "../../core/orders/place-order.ts";
import { RevokeApiKey } from "../../core/access/revoke-api-key.ts";
import { RotateWebhookSecret } from "../../core/webhooks/rotate-webhook-secret.ts";
import { RunIdempotently } from "../../core/idempotency/run-idempotently.ts";
import { SetInventory } from "../../core/inventory/set-inventory.ts";
import { UnbanApiKey } from "../../core/access/unban-api-key.ts";
import { UpdateApiKey } from "../../core/access/update-api-key.ts";
import { UpdateCategory } from "../../core/categories/update-category.ts";
import { UpdateOrder } from "../../core/orders/update-order.ts";
import { UpdatePet } from "../../core/pets/update-pet.ts";
import type { StockHints } from "../../core/orders/stock-hints.ts";
import type { ApiKeys } from "../../core/access/api-keys.port.ts";
import type { Secrets } from "../../core/access/secrets.port.ts";
import type { BanPolicy } from "../../core/rate-limiting/ban-policy.ts";
import type { Clock } from "../../core/shared/clock.port.ts";
import type { MarkDrops } from "../../core/orders/mark-drops.ts";
import type { Stores } from "../../core/stores.ts";
import type { AddressResolver } from "../../core/webhooks/address-resolver.port.ts";
import type { WebhookSigner } from "../../core/webhooks/webhook-signer.port.ts";

/** What use cases are made of: the stores' ports, services, and the settings some of them take. */
export interface UseCaseDependencies extends Omit<Stores, "close"> {
  clock: Clock;
  secrets: Secrets;
  /** API keys through a short-lived cache: what requests read (revocation takes effect within its bound). */
  cachedApiKeys: ApiKeys;
  webhookSigner: WebhookSigner;
  addressResolver: AddressResolver;
  banPolicy: BanPolicy;
  webhookTargets: { allowPrivateTargets: boolean };
  /** The instance's last sight of pets, shared by placing, cancelling and completing (docs/decisions/stock-hints.md). */
  stockHints: StockHints;
  /** The marks the instance has yet to drop, shared by the same three and flushed by bootstrap (core/orders/mark-drops.ts). */
  markDrops: MarkDrops;
}

export type Dependency = keyof UseCaseDependencies;

/** A use case's recipe: the dependencies it names, and how it is made of them. */
export interface UseCaseFactory<N extends Dependency, T> {
  readonly needs: readonly N[];
  readonly make: (dependencies: Pick<UseCaseDependencies, N>) => T;
}

const useCase = <N extends Dependency, T>(
  needs: readonly N[],
  make: (dependencies: Pick<UseCaseDependencies, N>) => T,
): UseCaseFactory<N, T> => ({
  needs,
  make,
});

/**
 * Every use case the HTTP adapter drives, registered once: `UseCases` is inferred from this record, and bootstrap/
 * binds each entry in the container under its own token.
 */
export const useCaseFactories = {
  listPets: useCase(["pets"], ({ pets }) => new ListPets(pets)),
  getPet: useCase(["pets"], ({ pets }) => new GetPet(pets)),
  createPet: useCase(["pets", "categories", "ids", "clock"], (d) => new CreatePet(d)),
  updatePet: useCase(["pets", "categories", "clock"], (d) => new UpdatePet(d)),
  deletePet: useCase(["pets", "orders", "clock"], (d) => new DeletePet(d)),

  listCategories: useCase(["categories"], ({ categories }) => new ListCategories(categories)),
  getCategory: useCase(["categories"], ({ categories }) => new GetCategory(categories)),
  createCategory: useCase(["categories", "ids"], (d) => new CreateCategory(d)),
  updateCategory: useCase(["categories"], ({ categories }) => new UpdateCategory(categories)),
  deleteCategory: useCase(["categories", "pets", "clock"], (d) => new DeleteCategory(d)),

  placeOrder: useCase(
    ["orders", "pets", "ids", "clock", "stockHints", "markDrops"],
    (d) => new PlaceOrder(d, d.stockHints, d.markDrops),
  ),
  listOrders: useCase(["orders"], ({ orders }) => new ListOrders(orders)),
  getOrder: useCase(["orders"], ({ orders }) => new GetOrder(orders)),
  describePlacements: useCase(["cachedApiKeys"], ({ cachedApiKeys }) => new DescribePlacements(cachedApiKeys)),
  updateOrder: useCase(
    ["orders", "pets", "clock", "stockHints", "markDrops"],
    (d) => new UpdateOrder(d, d.stockHints, d.markDrops),
  ),
  cancelOrder: useCase(
    ["orders", "pets", "clock", "stockHints", "markDrops"],
    (d) => new CancelOrder(d, d.stockHints, d.markDrops),
  ),

  listInventory: useCase(["pets"], ({ pets }) => new ListInventory(pets)),
  getInventoryItem: useCase(["pets"], ({ pets }) => new GetInventoryItem(pets)),
  setInventory: useCase(["pets", "clock"], (d) => new SetInventory(d)),

  createApiKey: useCase(
    ["cachedApiKeys", "adminGuard", "ids", "secrets", "clock"],
    ({ cachedApiKeys, ...d }) => new CreateApiKey({ apiKeys: cachedApiKeys, ...d }),
  ),
  listApiKeys: useCase(["cachedApiKeys"], ({ cachedApiKeys }) => new ListApiKeys(cachedApiKeys)),
  getApiKey: useCase(["cachedApiKeys"], ({ cachedApiKeys }) => new GetApiKey(cachedApiKeys)),
  getMe: useCase(
    ["cachedApiKeys", "limiter", "clock"],
    ({ cachedApiKeys, ...d }) => new GetMe({ apiKeys: cachedApiKeys, ...d }),
  ),
  followEvents: useCase(["eventLog"], ({ eventLog }) => new FollowEvents(eventLog)),
  checkKeyStanding: useCase(
    ["cachedApiKeys", "clock"],
    ({ cachedApiKeys, clock }) => new CheckKeyStanding({ apiKeys: cachedApiKeys, clock }),
  ),
  updateApiKey: useCase(
    ["cachedApiKeys", "adminGuard"],
    ({ cachedApiKeys, ...d }) => new UpdateApiKey({ apiKeys: cachedApiKeys, ...d }),
  ),
  revokeApiKey: useCase(
    ["cachedApiKeys", "adminGuard", "clock"],
    ({ cachedApiKeys, ...d }) => new RevokeApiKey({ apiKeys: cachedApiKeys, ...d }),
  ),
  unbanApiKey: useCase(["cachedApiKeys"], ({ cachedApiKeys }) => new UnbanApiKey(cachedApiKeys)),
  admitRequest: useCase(
    ["cachedApiKeys", "secrets", "limiter", "clock", "banPolicy"],
    ({ cachedApiKeys, banPolicy, ...d }) => new AdmitRequest({ apiKeys: cachedApiKeys, ...d }, banPolicy),
  ),
  runIdempotently: useCase(
    ["idempotency", "clock"],
    ({ idempotency, clock }) => new RunIdempotently({ records: idempotency, clock }),
  ),

  createWebhookSubscription: useCase(
    ["webhooks", "ids", "webhookSigner", "addressResolver", "clock", "webhookTargets"],
    ({ webhooks, ids, webhookSigner, addressResolver, clock, webhookTargets }) =>
      new CreateWebhookSubscription(
        { webhooks, ids, signer: webhookSigner, resolver: addressResolver, clock },
        webhookTargets,
      ),
  ),
  listWebhookSubscriptions: useCase(["webhooks"], ({ webhooks }) => new ListWebhookSubscriptions(webhooks)),
  getWebhookSubscription: useCase(["webhooks"], ({ webhooks }) => new GetWebhookSubscription(webhooks)),
  deleteWebhookSubscription: useCase(
    ["webhooks", "webhookMessages", "deliveryAttempts"],
    (d) => new DeleteWebhookSubscription(d),
  ),
  rotateWebhookSecret: useCase(
    ["webhooks", "webhookSigner", "clock"],
    ({ webhookSigner, ...d }) => new RotateWebhookSecret({ signer: webhookSigner, ...d }),
  ),
  listWebhookDeliveries: useCase(["webhooks", "deliveryAttempts"], (d) => new ListWebhookDeliveries(d)),
};

/** Everything the HTTP adapter drives, built once at start-up. */
export type UseCases = {
  readonly [K in keyof typeof useCaseFactories]: ReturnType<(typeof useCaseFactories)[K]["make"]>;
};
