import type { Pets } from "../pets/pets.port.ts";
import { notFound } from "../shared/domain-error.ts";
import type { InventoryItem } from "./inventory-item.ts";
import type { Inventory } from "./inventory.port.ts";

interface Ports {
  pets: Pets;
  inventory: Inventory;
}

export class GetInventoryItem {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(petId: number): Promise<InventoryItem> {
    const { pets, inventory } = this.#ports;
    const [pet, quantity] = await Promise.all([pets.ofId(petId), inventory.quantityOf(petId)]);
    if (!pet) throw notFound("Pet", petId);
    return { petId, quantity: quantity ?? 0, status: pet.status };
  }
}
