import type { Pets } from "../pets/pets.port.ts";
import { notFound } from "../shared/domain-error.ts";
import { inventoryItemOf, type InventoryItem } from "./inventory-item.ts";

export class GetInventoryItem {
  readonly #pets: Pets;
  constructor(pets: Pets) {
    this.#pets = pets;
  }

  // A listing of one: visible pets only.
  async execute(petId: number): Promise<InventoryItem> {
    const [pet] = await this.#pets.list({ ids: [petId], limit: 1 });
    if (!pet) throw notFound("Pet", petId);
    return inventoryItemOf(pet);
  }
}
