import type { PetStatus } from "../pets/pet.ts";

export interface InventoryItem {
  petId: number;
  quantity: number;
  status: PetStatus;
}
