import type { Pets } from "../pets/pets.port.ts";
import { DomainError, notFound } from "../shared/domain-error.ts";
import type { Categories } from "./categories.port.ts";

interface Ports {
  categories: Categories;
  pets: Pets;
}

export class DeleteCategory {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(id: number): Promise<void> {
    const { categories, pets } = this.#ports;
    if (!(await categories.ofId(id))) throw notFound("Category", id);
    if (await pets.anyInCategory(id)) {
      throw new DomainError("category_in_use", `Category ${id} still has pets; move or delete them first`);
    }
    if (!(await categories.remove(id))) throw notFound("Category", id);
  }
}
