import type { Pet, PetStatus } from "../../core/pets/pet.ts";
import type { PetQuery, Pets } from "../../core/pets/pets.port.ts";
import { pageOf } from "./memory-paging.ts";

/** Every method reads, checks and writes without awaiting in between: atomic within the process. */
export class MemoryPets implements Pets {
  readonly #pets = new Map<number, Pet>();

  async ofId(id: number): Promise<Pet | undefined> {
    const pet = this.#pets.get(id);
    return pet && structuredClone(pet);
  }

  async list(query: PetQuery): Promise<Pet[]> {
    const { statuses, categoryId, ids } = query;
    return pageOf(
      this.#pets.values(),
      query,
      (pet) =>
        (statuses === undefined || statuses.includes(pet.status)) &&
        (categoryId === undefined || pet.categoryId === categoryId) &&
        (ids === undefined || ids.includes(pet.id)),
    );
  }

  async add(pet: Pet): Promise<void> {
    this.#pets.set(pet.id, structuredClone(pet));
  }

  async replace(pet: Pet, expectedStatus: PetStatus): Promise<boolean> {
    if (this.#pets.get(pet.id)?.status !== expectedStatus) return false;
    this.#pets.set(pet.id, structuredClone(pet));
    return true;
  }

  async changeStatus(id: number, from: PetStatus, to: PetStatus): Promise<boolean> {
    const pet = this.#pets.get(id);
    if (pet?.status !== from) return false;
    pet.status = to;
    return true;
  }

  async remove(id: number): Promise<boolean> {
    return this.#pets.delete(id);
  }

  async anyInCategory(categoryId: number): Promise<boolean> {
    return [...this.#pets.values()].some((pet) => pet.categoryId === categoryId);
  }
}
