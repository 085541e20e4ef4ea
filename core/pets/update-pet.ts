import type { Categories } from "../categories/categories.port.ts";
import { notFound } from "../shared/domain-error.ts";
import { assertCategoryExists } from "./create-pet.ts";
import type { NewPet, Pet } from "./pet.ts";
import { assertStaffMayChangeStatus } from "./pet-status-transitions.ts";
import type { Pets } from "./pets.port.ts";

interface Ports {
  pets: Pets;
  categories: Categories;
}

/** PUT: name and category are replaced; an omitted status keeps the current one. */
export class UpdatePet {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(id: number, input: NewPet): Promise<Pet> {
    const { pets, categories } = this.#ports;
    for (;;) {
      const current = await pets.ofId(id);
      if (!current) throw notFound("Pet", id);
      await assertCategoryExists(categories, input.categoryId);
      const next: Pet = { id, name: input.name, categoryId: input.categoryId, status: input.status ?? current.status };
      assertStaffMayChangeStatus(current.status, next.status);
      // Compare-and-set on the status: an order may move the pet between our read and our write.
      if (await pets.replace(next, current.status)) return next;
    }
  }
}
