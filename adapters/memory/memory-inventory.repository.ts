import type { Inventory } from "../../core/inventory/inventory.port.ts";

/** Stock per pet. Each change checks and writes one count in a single synchronous step. */
export class MemoryInventory implements Inventory {
  readonly #stock = new Map<number, number>();

  async create(petId: number): Promise<void> {
    if (!this.#stock.has(petId)) this.#stock.set(petId, 0);
  }

  async quantityOf(petId: number): Promise<number | undefined> {
    return this.#stock.get(petId);
  }

  async quantitiesOf(petIds: readonly number[]): Promise<Map<number, number>> {
    const found = new Map<number, number>();
    for (const petId of petIds) {
      const quantity = this.#stock.get(petId);
      if (quantity !== undefined) found.set(petId, quantity);
    }
    return found;
  }

  async set(petId: number, quantity: number): Promise<boolean> {
    if (!this.#stock.has(petId)) return false;
    this.#stock.set(petId, quantity);
    return true;
  }

  async reserve(petId: number, units: number): Promise<number | undefined> {
    const quantity = this.#stock.get(petId);
    if (quantity === undefined || quantity < units) return undefined;
    this.#stock.set(petId, quantity - units);
    return quantity - units;
  }

  async release(petId: number, units: number): Promise<number | undefined> {
    const quantity = this.#stock.get(petId);
    if (quantity === undefined) return undefined;
    this.#stock.set(petId, quantity + units);
    return quantity + units;
  }

  async remove(petId: number): Promise<void> {
    this.#stock.delete(petId);
  }
}
