import { isVisible } from "../pets/pet-record.ts";
import type { Pets } from "../pets/pets.port.ts";
import { notFound } from "../shared/domain-error.ts";
import { inventoryItemOf, type InventoryItem } from "./inventory-item.ts";

export class GetInventoryItem {
  readonly #pets: Pets;
  constructor(pets: Pets) {
    this.#pets = pets;
  }

  async execute(petId: number): Promise<InventoryItem> {
    const pet = await this.#pets.ofId(petId);
    if (!isVisible(pet)) throw notFound("Pet", petId);
    return inventoryItemOf(pet);
  }
}
