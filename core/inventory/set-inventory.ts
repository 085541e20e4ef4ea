import { isVisible } from "../pets/pet-record.ts";
import type { Pets } from "../pets/pets.port.ts";
import { stockSetting, stockLimitError } from "../pets/stock-writes.ts";
import type { Clock } from "../shared/clock.port.ts";
import { notFound, revisionMismatch } from "../shared/domain-error.ts";
import { inventoryItemOf, type InventoryItem } from "./inventory-item.ts";

interface Ports {
  pets: Pets;
  clock: Clock;
}

// One write: the stock and the status change a restock causes.
export class SetInventory {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(petId: number, quantity: number, expectedRevision?: number): Promise<InventoryItem> {
    const { pets, clock } = this.#ports;
    for (;;) {
      const result = await pets.setStock(stockSetting(clock, petId, quantity, expectedRevision));
      if (result.applied) return inventoryItemOf(result.pet);
      if (!isVisible(result.pet)) throw notFound("Pet", petId);
      if (expectedRevision !== undefined && result.pet.revision !== expectedRevision)
        throw revisionMismatch("Pet", petId);
      const overLimit = stockLimitError(result.pet, quantity);
      if (overLimit) throw overLimit;
    }
  }
}
