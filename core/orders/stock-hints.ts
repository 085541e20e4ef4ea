import type { ListedPet } from "../pets/pet-record.ts";
import { foreseeReserve } from "../pets/stock-writes.ts";

/**
 * The stock this instance last saw on each pet that could be ordered, as the answer of its own reads and reserve
 * writes left it. A hint only: it lets a placing skip the read and reserve at once, but the conditional reserve
 * still decides, so a stale hint costs round trips, never correctness. The pets seen longest ago are forgotten
 * first, half the capacity at a time: pets are noted in the newer of two maps, and when it is full the older map
 * goes and a new one starts. A pet seen again is updated in place, so a hot pet costs its map no churn (a
 * long-lived map that deletes and re-adds an entry on every order makes new tables of entries in V8's old
 * generation, garbage for full collections).
 */
export class StockHints {
  #newer = new Map<number, number>();
  #older = new Map<number, number>();
  readonly #half: number;

  constructor(capacity = 10_000) {
    this.#half = Math.max(1, Math.ceil(capacity / 2));
  }

  /** Units last seen in stock, or undefined when the pet was not seen orderable (unknown, provisional, not available, none left). */
  stockOf(petId: number): number | undefined {
    return this.#newer.get(petId) ?? this.#older.get(petId);
  }

  saw(petId: number, pet: ListedPet | undefined): void {
    if (!pet || foreseeReserve(pet, 1) !== undefined) {
      this.#newer.delete(petId);
      this.#older.delete(petId);
      return;
    }
    if (!this.#newer.has(petId)) {
      if (this.#newer.size >= this.#half) {
        this.#older = this.#newer;
        this.#newer = new Map();
      }
      this.#older.delete(petId);
    }
    this.#newer.set(petId, pet.stock);
  }
}
