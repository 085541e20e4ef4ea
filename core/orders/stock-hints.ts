import type { ListedPet } from "../pets/pet-record.ts";
import { foreseeReserve, type PetSight } from "../pets/stock-writes.ts";

/** Lets a placing skip its read; the reservation still decides: docs/decisions/stock-hints.md. */
export class StockHints {
  #newer = new Map<number, PetSight>();
  #older = new Map<number, PetSight>();
  readonly #half: number;

  constructor(capacity = 10_000) {
    this.#half = Math.max(1, Math.ceil(capacity / 2));
  }

  /** Undefined unless the pet was last seen orderable. */
  stockOf(petId: number): number | undefined {
    return this.sightOf(petId)?.stock;
  }

  /** Its stock and fences when last seen orderable. */
  sightOf(petId: number): PetSight | undefined {
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
    // The record is the caller's copy: its fences can be kept as they are.
    this.#newer.set(petId, { stock: pet.stock, fences: pet.fences });
  }
}
