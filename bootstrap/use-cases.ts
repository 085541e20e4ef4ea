import type { UseCases } from "../adapters/http/use-cases.ts";
import { CreateApiKey } from "../core/access/create-api-key.ts";
import { GetApiKey } from "../core/access/get-api-key.ts";
import { ListApiKeys } from "../core/access/list-api-keys.ts";
import { RevokeApiKey } from "../core/access/revoke-api-key.ts";
import { UnbanApiKey } from "../core/access/unban-api-key.ts";
import { UpdateApiKey } from "../core/access/update-api-key.ts";
import type { Secrets } from "../core/access/secrets.port.ts";
import { CreateCategory } from "../core/categories/create-category.ts";
import { DeleteCategory } from "../core/categories/delete-category.ts";
import { GetCategory } from "../core/categories/get-category.ts";
import { ListCategories } from "../core/categories/list-categories.ts";
import { UpdateCategory } from "../core/categories/update-category.ts";
import { GetInventoryItem } from "../core/inventory/get-inventory-item.ts";
import { ListInventory } from "../core/inventory/list-inventory.ts";
import { SetInventory } from "../core/inventory/set-inventory.ts";
import { CancelOrder } from "../core/orders/cancel-order.ts";
import { GetOrder } from "../core/orders/get-order.ts";
import { ListOrders } from "../core/orders/list-orders.ts";
import { PlaceOrder } from "../core/orders/place-order.ts";
import { UpdateOrder } from "../core/orders/update-order.ts";
import { CreatePet } from "../core/pets/create-pet.ts";
import { DeletePet } from "../core/pets/delete-pet.ts";
import { GetPet } from "../core/pets/get-pet.ts";
import { ListPets } from "../core/pets/list-pets.ts";
import { UpdatePet } from "../core/pets/update-pet.ts";
import { RunIdempotently } from "../core/idempotency/run-idempotently.ts";
import { AdmitRequest } from "../core/rate-limiting/admit-request.ts";
import { CachedApiKeys } from "../core/access/cached-api-keys.ts";
import type { BanPolicy } from "../core/rate-limiting/ban-policy.ts";
import type { Clock } from "../core/shared/clock.port.ts";
import type { Stores } from "../core/stores.ts";
import type { AddressResolver } from "../core/webhooks/address-resolver.port.ts";
import { CreateWebhookSubscription } from "../core/webhooks/create-webhook-subscription.ts";
import { DeleteWebhookSubscription } from "../core/webhooks/delete-webhook-subscription.ts";
import { GetWebhookSubscription } from "../core/webhooks/get-webhook-subscription.ts";
import { ListWebhookDeliveries } from "../core/webhooks/list-webhook-deliveries.ts";
import { ListWebhookSubscriptions } from "../core/webhooks/list-webhook-subscriptions.ts";
import { RotateWebhookSecret } from "../core/webhooks/rotate-webhook-secret.ts";
import type { WebhookSigner } from "../core/webhooks/webhook-signer.port.ts";

interface WebhookDeps {
  signer: WebhookSigner;
  resolver: AddressResolver;
  allowPrivateTargets: boolean;
}

/** Every use case, wired to its ports once. */
export const buildUseCases = (s: Stores, clock: Clock, secrets: Secrets, ban: BanPolicy, webhook: WebhookDeps): UseCases => {
  const { pets, categories, orders, inventory, ids, adminGuard, limiter, idempotency, webhooks } = s;
  const apiKeys = new CachedApiKeys(s.apiKeys, clock);
  const { signer, resolver, allowPrivateTargets } = webhook;
  return {
    listPets: new ListPets(pets),
    getPet: new GetPet(pets),
    createPet: new CreatePet({ pets, categories, inventory, ids }),
    updatePet: new UpdatePet({ pets, categories }),
    deletePet: new DeletePet({ pets, orders, inventory }),
    listCategories: new ListCategories(categories),
    getCategory: new GetCategory(categories),
    createCategory: new CreateCategory({ categories, ids }),
    updateCategory: new UpdateCategory(categories),
    deleteCategory: new DeleteCategory({ categories, pets }),
    placeOrder: new PlaceOrder({ orders, pets, inventory, ids }),
    listOrders: new ListOrders(orders),
    getOrder: new GetOrder(orders),
    updateOrder: new UpdateOrder({ orders, pets, inventory, clock }),
    cancelOrder: new CancelOrder({ orders, pets, inventory }),
    listInventory: new ListInventory({ pets, inventory }),
    getInventoryItem: new GetInventoryItem({ pets, inventory }),
    setInventory: new SetInventory({ pets, inventory }),
    createApiKey: new CreateApiKey({ apiKeys, adminGuard, ids, secrets, clock }),
    listApiKeys: new ListApiKeys(apiKeys),
    getApiKey: new GetApiKey(apiKeys),
    updateApiKey: new UpdateApiKey({ apiKeys, adminGuard }),
    revokeApiKey: new RevokeApiKey({ apiKeys, adminGuard, clock }),
    unbanApiKey: new UnbanApiKey(apiKeys),
    admitRequest: new AdmitRequest({ apiKeys, secrets, limiter, clock }, ban),
    createWebhookSubscription: new CreateWebhookSubscription({ webhooks, ids, signer, resolver, clock }, { allowPrivateTargets }),
    listWebhookSubscriptions: new ListWebhookSubscriptions(webhooks),
    getWebhookSubscription: new GetWebhookSubscription(webhooks),
    deleteWebhookSubscription: new DeleteWebhookSubscription(s),
    rotateWebhookSecret: new RotateWebhookSecret({ webhooks, signer, clock }),
    listWebhookDeliveries: new ListWebhookDeliveries(s),
    runIdempotently: new RunIdempotently({ records: idempotency, clock }),
  };
};
