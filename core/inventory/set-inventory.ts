import { isVisible, type PetRecord } from "../pets/pet-record.ts";
import type { Pets } from "../pets/pets.port.ts";
import { stockSetting, stockLimitError } from "../pets/stock-writes.ts";
import type { Clock } from "../shared/clock.port.ts";
import { notFound, revisionMismatch } from "../shared/domain-error.ts";
import { inventoryItemOf, type InventoryItem } from "./inventory-item.ts";

interface Ports {
  pets: Pets;
  clock: Clock;
}

// One write: the stock and the status change a restock causes. Without If-Match, the pet is read first and the write
// is conditional on the revision read, so a copy of it landing later (once anything wrote the pet) is refused.
export class SetInventory {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(petId: number, quantity: number, expectedRevision?: number): Promise<InventoryItem> {
    const { pets, clock } = this.#ports;
    for (;;) {
      const revision = expectedRevision ?? (await this.#visible(petId)).revision;
      const result = await pets.setStock(stockSetting(clock, petId, quantity, revision));
      if (result.applied) return inventoryItemOf(result.pet);
      if (!isVisible(result.pet)) throw notFound("Pet", petId);
      if (result.pet.revision !== revision) {
        if (expectedRevision !== undefined) throw revisionMismatch("Pet", petId);
        continue;
      }
      const overLimit = stockLimitError(result.pet, quantity);
      if (overLimit) throw overLimit;
    }
  }

  async #visible(petId: number): Promise<PetRecord> {
    const pet = await this.#ports.pets.ofId(petId);
    if (!isVisible(pet)) throw notFound("Pet", petId);
    return pet;
  }
}
