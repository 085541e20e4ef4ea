import type { Categories } from "../categories/categories.port.ts";
import type { Clock } from "../shared/clock.port.ts";
import { DomainError } from "../shared/domain-error.ts";
import type { IdAllocator } from "../shared/id-allocator.port.ts";
import { categoryAcceptsPets } from "./category-check.ts";
import type { NewPet, Pet } from "./pet.ts";
import { isVisible, petOf, type PetRecord, type WrittenPet } from "./pet-record.ts";
import type { Pets } from "./pets.port.ts";

interface Ports {
  pets: Pets;
  categories: Categories;
  ids: IdAllocator;
  clock: Clock;
}

export const unknownCategory = (categoryId: number): DomainError =>
  new DomainError("unknown_category", `Category ${categoryId} does not exist`);

/**
 * create pet: 0 read the category (an unknown one is refused without a write)
 *             1 allocate the id                                   crash → nothing written
 *             2 insert pet {creating}, stock 0, invisible         crash → recovery (after the grace period)
 *                                                                 finishes it if the category accepts pets, else deletes it
 *             3 read the category: exists, not deleting           (Dekker with DeleteCategory)
 *             4 creating → visible                                crash before → as 2
 * A refused category deletes the creating pet at once.
 */
export class CreatePet {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(input: NewPet): Promise<Pet> {
    const { pets, categories, ids, clock } = this.#ports;
    // An unknown category is refused before anything is written or an id spent; the check after write 2 decides.
    if (!(await categoryAcceptsPets(categories, input.categoryId))) throw unknownCategory(input.categoryId);
    const now = clock.now();
    const creating: PetRecord = {
      id: await ids.next("pets"),
      name: input.name,
      categoryId: input.categoryId,
      status: input.status ?? "available",
      revision: 1,
      stock: 0,
      holds: [],
      lifecycle: "creating",
      movingTo: undefined,
      provisionalSince: now,
    };
    await pets.insert(creating);
    if (!(await categoryAcceptsPets(categories, input.categoryId))) {
      await pets.removeIf(creating.id, { lifecycle: "creating" });
      // Recovery may have finished the pet meanwhile (a request slower than the grace period): then it exists.
      const pet = await pets.ofId(creating.id);
      if (isVisible(pet)) return petOf(pet);
      throw unknownCategory(input.categoryId);
    }
    const created = await finishCreating(pets, creating.id);
    if (!created) throw new DomainError("service_unavailable", "The pet took too long to create and was undone; create it again", 1);
    return petOf(created);
  }
}

/** creating → visible; the pet afterwards, or undefined when it is no longer being created. */
export const finishCreating = async (pets: Pets, id: number): Promise<WrittenPet | undefined> => {
  const result = await pets.write(id, [{ when: { lifecycle: "creating" }, then: { lifecycle: "none", provisionalSince: "none" } }]);
  if (result.applied !== undefined) return result.pet;
  return isVisible(result.pet) ? result.pet : undefined;
};
