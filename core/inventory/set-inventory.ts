import { applyTransition } from "../pets/pet-status-transitions.ts";
import type { Pets } from "../pets/pets.port.ts";
import { notFound } from "../shared/domain-error.ts";
import type { InventoryItem } from "./inventory-item.ts";
import type { Inventory } from "./inventory.port.ts";

interface Ports {
  pets: Pets;
  inventory: Inventory;
}

export class SetInventory {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(petId: number, quantity: number): Promise<InventoryItem> {
    const { pets, inventory } = this.#ports;
    const pet = await pets.ofId(petId);
    if (!pet || !(await inventory.set(petId, quantity))) throw notFound("Pet", petId);
    let status = pet.status;
    if (status === "sold" && quantity > 0 && (await applyTransition(pets, petId, "sold", "available", "restock"))) {
      status = "available";
    }
    return { petId, quantity, status };
  }
}
