import { pageOfPets } from "../pets/list-pets.ts";
import type { PetQuery, Pets } from "../pets/pets.port.ts";
import type { Page } from "../shared/page.ts";
import { inventoryItemOf, type InventoryItem } from "./inventory-item.ts";

/** The stock, one item per pet, searched, filtered, sorted and paged as the pets are. */
export class ListInventory {
  readonly #pets: Pets;
  constructor(pets: Pets) {
    this.#pets = pets;
  }

  execute(query: Omit<PetQuery, "ids">): Promise<Page<InventoryItem>> {
    return pageOfPets(this.#pets, query, inventoryItemOf);
  }
}
