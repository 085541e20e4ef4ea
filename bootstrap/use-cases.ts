import type { Container } from "inversify";
import type { UseCases } from "../adapters/http/use-cases.ts";
import { CachedApiKeys } from "../core/access/cached-api-keys.ts";
import { CreateApiKey } from "../core/access/create-api-key.ts";
import { EnsureAdminKey } from "../core/access/ensure-admin-key.ts";
import { GetApiKey } from "../core/access/get-api-key.ts";
import { GetMe } from "../core/access/get-me.ts";
import { FollowEvents } from "../core/events/follow-events.ts";
import { ListApiKeys } from "../core/access/list-api-keys.ts";
import { RevokeApiKey } from "../core/access/revoke-api-key.ts";
import { UnbanApiKey } from "../core/access/unban-api-key.ts";
import { UpdateApiKey } from "../core/access/update-api-key.ts";
import { CreateCategory } from "../core/categories/create-category.ts";
import { DeleteCategory } from "../core/categories/delete-category.ts";
import { GetCategory } from "../core/categories/get-category.ts";
import { ListCategories } from "../core/categories/list-categories.ts";
import { UpdateCategory } from "../core/categories/update-category.ts";
import { RunIdempotently } from "../core/idempotency/run-idempotently.ts";
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
import { AdmitRequest } from "../core/rate-limiting/admit-request.ts";
import { CreateWebhookSubscription } from "../core/webhooks/create-webhook-subscription.ts";
import { DeleteWebhookSubscription } from "../core/webhooks/delete-webhook-subscription.ts";
import { GetWebhookSubscription } from "../core/webhooks/get-webhook-subscription.ts";
import { ListWebhookDeliveries } from "../core/webhooks/list-webhook-deliveries.ts";
import { ListWebhookSubscriptions } from "../core/webhooks/list-webhook-subscriptions.ts";
import { RotateWebhookSecret } from "../core/webhooks/rotate-webhook-secret.ts";
import type { Config } from "./config.ts";
import { ports as p, tokens as t, useCaseTokens as u, type Ports } from "./tokens.ts";

/** Each port of the opened stores under its own token. */
export const bindPorts = (container: Container, stores: Ports): void => {
  for (const name of Object.keys(p) as (keyof Ports)[]) container.bind(p[name] as never).toConstantValue(stores[name]);
};

/**
 * One binding per use case, each naming the ports it uses (the container's default scope is singleton: built once,
 * at start-up). Core classes need no decorators: they are made by these factories.
 */
export const bindUseCases = (container: Container): void => {
  container.bind(t.cachedApiKeys).toResolvedValue((store, clock) => new CachedApiKeys(store, clock), [p.apiKeys, t.clock]);

  container.bind(u.listPets).toResolvedValue((pets) => new ListPets(pets), [p.pets]);
  container.bind(u.getPet).toResolvedValue((pets) => new GetPet(pets), [p.pets]);
  container
    .bind(u.createPet)
    .toResolvedValue((pets, categories, ids, clock) => new CreatePet({ pets, categories, ids, clock }), [p.pets, p.categories, p.ids, t.clock]);
  container.bind(u.updatePet).toResolvedValue((pets, categories, clock) => new UpdatePet({ pets, categories, clock }), [p.pets, p.categories, t.clock]);
  container.bind(u.deletePet).toResolvedValue((pets, orders, clock) => new DeletePet({ pets, orders, clock }), [p.pets, p.orders, t.clock]);

  container.bind(u.listCategories).toResolvedValue((categories) => new ListCategories(categories), [p.categories]);
  container.bind(u.getCategory).toResolvedValue((categories) => new GetCategory(categories), [p.categories]);
  container.bind(u.createCategory).toResolvedValue((categories, ids) => new CreateCategory({ categories, ids }), [p.categories, p.ids]);
  container.bind(u.updateCategory).toResolvedValue((categories) => new UpdateCategory(categories), [p.categories]);
  container.bind(u.deleteCategory).toResolvedValue((categories, pets, clock) => new DeleteCategory({ categories, pets, clock }), [p.categories, p.pets, t.clock]);

  container
    .bind(u.placeOrder)
    .toResolvedValue((orders, pets, ids, clock) => new PlaceOrder({ orders, pets, ids, clock }), [p.orders, p.pets, p.ids, t.clock]);
  container.bind(u.listOrders).toResolvedValue((orders) => new ListOrders(orders), [p.orders]);
  container.bind(u.getOrder).toResolvedValue((orders) => new GetOrder(orders), [p.orders]);
  container
    .bind(u.updateOrder)
    .toResolvedValue((orders, pets, clock) => new UpdateOrder({ orders, pets, clock }), [p.orders, p.pets, t.clock]);
  container.bind(u.cancelOrder).toResolvedValue((orders, pets, clock) => new CancelOrder({ orders, pets, clock }), [p.orders, p.pets, t.clock]);

  container.bind(u.listInventory).toResolvedValue((pets) => new ListInventory(pets), [p.pets]);
  container.bind(u.getInventoryItem).toResolvedValue((pets) => new GetInventoryItem(pets), [p.pets]);
  container.bind(u.setInventory).toResolvedValue((pets, clock) => new SetInventory({ pets, clock }), [p.pets, t.clock]);

  container
    .bind(u.createApiKey)
    .toResolvedValue(
      (apiKeys, adminGuard, ids, secrets, clock) => new CreateApiKey({ apiKeys, adminGuard, ids, secrets, clock }),
      [t.cachedApiKeys, p.adminGuard, p.ids, t.secrets, t.clock],
    );
  container.bind(u.listApiKeys).toResolvedValue((apiKeys) => new ListApiKeys(apiKeys), [t.cachedApiKeys]);
  container.bind(u.getApiKey).toResolvedValue((apiKeys) => new GetApiKey(apiKeys), [t.cachedApiKeys]);
  container.bind(u.followEvents).toResolvedValue((log) => new FollowEvents(log), [p.eventLog]);
  container
    .bind(u.getMe)
    .toResolvedValue((apiKeys, limiter, clock) => new GetMe({ apiKeys, limiter, clock }), [t.cachedApiKeys, p.limiter, t.clock]);
  container.bind(u.updateApiKey).toResolvedValue((apiKeys, adminGuard) => new UpdateApiKey({ apiKeys, adminGuard }), [t.cachedApiKeys, p.adminGuard]);
  container
    .bind(u.revokeApiKey)
    .toResolvedValue((apiKeys, adminGuard, clock) => new RevokeApiKey({ apiKeys, adminGuard, clock }), [t.cachedApiKeys, p.adminGuard, t.clock]);
  container.bind(u.unbanApiKey).toResolvedValue((apiKeys) => new UnbanApiKey(apiKeys), [t.cachedApiKeys]);
  // Start-up, on the store itself: it must see every key there is, not a cached view.
  container
    .bind(t.ensureAdminKey)
    .toResolvedValue(
      (apiKeys, adminGuard, ids, secrets, clock) => new EnsureAdminKey({ apiKeys, adminGuard, ids, secrets, clock }),
      [p.apiKeys, p.adminGuard, p.ids, t.secrets, t.clock],
    );
  container
    .bind(u.admitRequest)
    .toResolvedValue(
      (apiKeys, secrets, limiter, clock, config: Config) => new AdmitRequest({ apiKeys, secrets, limiter, clock }, config.ban),
      [t.cachedApiKeys, t.secrets, p.limiter, t.clock, t.config],
    );
  container.bind(u.runIdempotently).toResolvedValue((records, clock) => new RunIdempotently({ records, clock }), [p.idempotency, t.clock]);

  container
    .bind(u.createWebhookSubscription)
    .toResolvedValue(
      (webhooks, ids, signer, resolver, clock, config: Config) =>
        new CreateWebhookSubscription({ webhooks, ids, signer, resolver, clock }, { allowPrivateTargets: config.webhooks.allowPrivateTargets }),
      [p.webhooks, p.ids, t.webhookSigner, t.addressResolver, t.clock, t.config],
    );
  container.bind(u.listWebhookSubscriptions).toResolvedValue((webhooks) => new ListWebhookSubscriptions(webhooks), [p.webhooks]);
  container.bind(u.getWebhookSubscription).toResolvedValue((webhooks) => new GetWebhookSubscription(webhooks), [p.webhooks]);
  container
    .bind(u.deleteWebhookSubscription)
    .toResolvedValue(
      (webhooks, webhookMessages, deliveryAttempts) => new DeleteWebhookSubscription({ webhooks, webhookMessages, deliveryAttempts }),
      [p.webhooks, p.webhookMessages, p.deliveryAttempts],
    );
  container
    .bind(u.rotateWebhookSecret)
    .toResolvedValue((webhooks, signer, clock) => new RotateWebhookSecret({ webhooks, signer, clock }), [p.webhooks, t.webhookSigner, t.clock]);
  container
    .bind(u.listWebhookDeliveries)
    .toResolvedValue((webhooks, deliveryAttempts) => new ListWebhookDeliveries({ webhooks, deliveryAttempts }), [p.webhooks, p.deliveryAttempts]);

  const names = Object.keys(u) as (keyof UseCases)[];
  container
    .bind(t.useCases)
    .toResolvedValue((...resolved: unknown[]) => Object.fromEntries(names.map((name, i) => [name, resolved[i]])) as unknown as UseCases, names.map((name) => u[name]));
};
