import type { PetStatus } from "../pets/pet.ts";
import type { Pets } from "../pets/pets.port.ts";
import { lookahead, toPage, type Page, type PageRequest } from "../shared/page.ts";
import { inventoryItemOf, type InventoryItem } from "./inventory-item.ts";

export class ListInventory {
  readonly #pets: Pets;
  constructor(pets: Pets) {
    this.#pets = pets;
  }

  async execute(query: PageRequest & { statuses?: readonly PetStatus[] | undefined }): Promise<Page<InventoryItem>> {
    const fetched = await this.#pets.list({ ...query, ...lookahead(query) });
    return toPage(fetched.map(inventoryItemOf), query, (item) => item.petId);
  }
}
