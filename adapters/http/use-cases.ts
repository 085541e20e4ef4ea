import type {
  CreateApiKey,
  GetApiKey,
  ListApiKeys,
  RevokeApiKey,
  UnbanApiKey,
  UpdateApiKey,
} from "../../core/access/api-key-use-cases.ts";
import type {
  CreateCategory,
  DeleteCategory,
  GetCategory,
  ListCategories,
  UpdateCategory,
} from "../../core/categories/category-use-cases.ts";
import type { GetInventoryItem, ListInventory, SetInventory } from "../../core/inventory/inventory-use-cases.ts";
import type { CancelOrder, GetOrder, ListOrders, PlaceOrder, UpdateOrder } from "../../core/orders/order-use-cases.ts";
import type { CreatePet } from "../../core/pets/create-pet.ts";
import type { DeletePet } from "../../core/pets/delete-pet.ts";
import type { GetPet } from "../../core/pets/get-pet.ts";
import type { ListPets } from "../../core/pets/list-pets.ts";
import type { UpdatePet } from "../../core/pets/update-pet.ts";
import type { RunIdempotently } from "../../core/idempotency/run-idempotently.ts";
import type { AdmitRequest } from "../../core/rate-limiting/admit-request.ts";

/** Everything the HTTP adapter drives, built once at start-up. */
export interface UseCases {
  listPets: ListPets;
  getPet: GetPet;
  createPet: CreatePet;
  updatePet: UpdatePet;
  deletePet: DeletePet;
  listCategories: ListCategories;
  getCategory: GetCategory;
  createCategory: CreateCategory;
  updateCategory: UpdateCategory;
  deleteCategory: DeleteCategory;
  placeOrder: PlaceOrder;
  listOrders: ListOrders;
  getOrder: GetOrder;
  updateOrder: UpdateOrder;
  cancelOrder: CancelOrder;
  listInventory: ListInventory;
  getInventoryItem: GetInventoryItem;
  setInventory: SetInventory;
  createApiKey: CreateApiKey;
  listApiKeys: ListApiKeys;
  getApiKey: GetApiKey;
  updateApiKey: UpdateApiKey;
  revokeApiKey: RevokeApiKey;
  unbanApiKey: UnbanApiKey;
  admitRequest: AdmitRequest;
  runIdempotently: RunIdempotently;
}
