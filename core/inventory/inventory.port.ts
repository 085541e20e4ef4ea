/** Stock counts per pet. Every change is one atomic step on one pet's count. */
export interface Inventory {
  /** A new pet's item, quantity 0. */
  create(petId: number): Promise<void>;
  quantityOf(petId: number): Promise<number | undefined>;
  quantitiesOf(petIds: readonly number[]): Promise<Map<number, number>>;
  /** False when the pet has no item. */
  set(petId: number, quantity: number): Promise<boolean>;
  /** Takes `units` only if at least that many are in stock; returns what is left, or undefined when it could not. */
  reserve(petId: number, units: number): Promise<number | undefined>;
  /** Gives `units` back; returns the new quantity, or undefined when the pet has no item. */
  release(petId: number, units: number): Promise<number | undefined>;
  remove(petId: number): Promise<void>;
}
