import type { Categories } from "../categories/categories.port.ts";
import type { Inventory } from "../inventory/inventory.port.ts";
import { DomainError } from "../shared/domain-error.ts";
import type { IdAllocator } from "../shared/id-allocator.port.ts";
import type { NewPet, Pet } from "./pet.ts";
import type { Pets } from "./pets.port.ts";

export const assertCategoryExists = async (categories: Categories, categoryId: number): Promise<void> => {
  if (!(await categories.ofId(categoryId))) {
    throw new DomainError("unknown_category", `Category ${categoryId} does not exist`);
  }
};

interface Ports {
  pets: Pets;
  categories: Categories;
  inventory: Inventory;
  ids: IdAllocator;
}

export class CreatePet {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(input: NewPet): Promise<Pet> {
    const { pets, categories, inventory, ids } = this.#ports;
    await assertCategoryExists(categories, input.categoryId);
    const pet: Pet = {
      id: await ids.next("pets"),
      name: input.name,
      categoryId: input.categoryId,
      status: input.status ?? "available",
    };
    // Stock first: a crash between the two writes leaves an item no listing reaches (listings walk pets),
    // never a pet without stock.
    await inventory.create(pet.id);
    await pets.add(pet);
    return pet;
  }
}
