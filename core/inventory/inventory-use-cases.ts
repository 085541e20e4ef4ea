import type { PetStatus } from "../pets/pet.ts";
import { applyTransition } from "../pets/pet-status-transitions.ts";
import type { Pets } from "../pets/pets.port.ts";
import { notFound } from "../shared/domain-error.ts";
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
