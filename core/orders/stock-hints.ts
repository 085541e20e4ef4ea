import type { ListedPet } from "../pets/pet-record.ts";
import { foreseeReserve } from "../pets/stock-writes.ts";

/**
 * The stock this instance last saw on orderable pets, so a placing may skip its read; the conditional reserve still
 * decides, so a stale hint costs round trips, never correctness. Two maps: the older one goes when the newer fills.
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
