import type { PetStatus } from "../pets/pet.ts";
import type { ListedPet } from "../pets/pet-record.ts";

export interface InventoryItem {
  petId: number;
  quantity: number;
  status: PetStatus;
  revision: number;
}

export const inventoryItemOf = (pet: ListedPet): InventoryItem => ({
  petId: pet.id,
  quantity: pet.stock,
  status: pet.status,
  revision: pet.revision,
});
