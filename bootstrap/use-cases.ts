import type { UseCases } from "../adapters/http/use-cases.ts";
import {
  CreateApiKey,
  GetApiKey,
  ListApiKeys,
  RevokeApiKey,
  UnbanApiKey,
  UpdateApiKey,
} from "../core/access/api-key-use-cases.ts";
import type { Secrets } from "../core/access/secrets.port.ts";
import {
  CreateCategory,
  DeleteCategory,
  GetCategory,
  ListCategories,
  UpdateCategory,
} from "../core/categories/category-use-cases.ts";
import { GetInventoryItem, ListInventory, SetInventory } from "../core/inventory/inventory-use-cases.ts";
import { CancelOrder, GetOrder, ListOrders, PlaceOrder, UpdateOrder } from "../core/orders/order-use-cases.ts";
import { CreatePet } from "../core/pets/create-pet.ts";
import { DeletePet } from "../core/pets/delete-pet.ts";
import { GetPet } from "../core/pets/get-pet.ts";
import { ListPets } from "../core/pets/list-pets.ts";
import { UpdatePet } from "../core/pets/update-pet.ts";
import { RunIdempotently } from "../core/idempotency/run-idempotently.ts";
import { AdmitRequest } from "../core/rate-limiting/admit-request.ts";
import type { BanPolicy } from "../core/rate-limiting/ban-policy.ts";
import type { Clock } from "../core/shared/clock.port.ts";
import type { Stores } from "../core/stores.ts";

/** Every use case, wired to its ports once. */
export const buildUseCases = (s: Stores, clock: Clock, secrets: Secrets, ban: BanPolicy): UseCases => {
  const { pets, categories, orders, inventory, ids, apiKeys, limiter, idempotency } = s;
  const orderPorts = { orders, pets, inventory, ids, clock };
  const keyPorts = { apiKeys, ids, secrets, clock };
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
    placeOrder: new PlaceOrder(orderPorts),
    listOrders: new ListOrders(orderPorts),
    getOrder: new GetOrder(orderPorts),
    updateOrder: new UpdateOrder(orderPorts),
    cancelOrder: new CancelOrder(orderPorts),
    listInventory: new ListInventory({ pets, inventory }),
    getInventoryItem: new GetInventoryItem({ pets, inventory }),
    setInventory: new SetInventory({ pets, inventory }),
    createApiKey: new CreateApiKey(keyPorts),
    listApiKeys: new ListApiKeys(keyPorts),
    getApiKey: new GetApiKey(keyPorts),
    updateApiKey: new UpdateApiKey(keyPorts),
    revokeApiKey: new RevokeApiKey(keyPorts),
    unbanApiKey: new UnbanApiKey(keyPorts),
    admitRequest: new AdmitRequest({ apiKeys, secrets, limiter, clock }, ban),
    runIdempotently: new RunIdempotently({ records: idempotency, clock }),
  };
};
