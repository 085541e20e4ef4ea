import type { ListedPet } from "../pets/pet-record.ts";
import { foreseeReserve } from "../pets/stock-writes.ts";

/**
 * The stock this instance last saw on each pet that could be ordered, as the answer of its own reads and reserve
 * writes left it. A hint only: it lets a placing skip the read and reserve at once, but the conditional reserve
 * still decides, so a stale hint costs round trips, never correctness. The pets seen longest ago are forgotten
 * first.
 */
export class StockHints {
  readonly #stock = new Map<number, number>();
  readonly #capacity: number;

  constructor(capacity = 10_000) {
    this.#capacity = capacity;
  }

  /** Units last seen in stock, or undefined when the pet was not seen orderable (unknown, provisional, not available, none left). */
  stockOf(petId: number): number | undefined {
    return this.#stock.get(petId);
  }

  saw(petId: number, pet: ListedPet | undefined): void {
    this.#stock.delete(petId);
    if (!pet || foreseeReserve(pet, 1) !== undefined) return;
    if (this.#stock.size >= this.#capacity) {
      for (const oldest of this.#stock.keys()) {
        this.#stock.delete(oldest);
        break;
      }
    }
    this.#stock.set(petId, pet.stock);
  }
}
