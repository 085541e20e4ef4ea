import type { PetStatus } from "../pets/pet.ts";
import type { Pets } from "../pets/pets.port.ts";
import { lookahead, toPage, type Page, type PageRequest } from "../shared/page.ts";
import type { InventoryItem } from "./inventory-item.ts";
import type { Inventory } from "./inventory.port.ts";

interface Ports {
  pets: Pets;
  inventory: Inventory;
}

export class ListInventory {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  /** One item per pet, in pet id order; two store reads per page whatever its size. */
  async execute(query: PageRequest & { statuses?: readonly PetStatus[] | undefined }): Promise<Page<InventoryItem>> {
    const { pets, inventory } = this.#ports;
    const page = toPage(await pets.list({ ...query, ...lookahead(query) }), query, (p) => p.id);
    const quantities = await inventory.quantitiesOf(page.items.map((p) => p.id));
    return {
      items: page.items.map((p) => ({ petId: p.id, quantity: quantities.get(p.id) ?? 0, status: p.status })),
      nextAfter: page.nextAfter,
    };
  }
}
