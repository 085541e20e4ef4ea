import type { ListedPet } from "../pets/pet-record.ts";
import { foreseeReserve } from "../pets/stock-writes.ts";

/** Lets a placing skip its read; the reservation still decides: docs/decisions/stock-hints.md. */
export class StockHints {
  #newer = new Map<number, number>();
  #older = new Map<number, number>();
  readonly #half: number;

  constructor(capacity = 10_000) {
    this.#half = Math.max(1, Math.ceil(capacity / 2));
  }

  /** Undefined unless the pet was last seen orderable. */
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
