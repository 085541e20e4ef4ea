import type { IdAllocator } from "../shared/id-allocator.port.ts";
import type { Categories } from "./categories.port.ts";
import type { Category, NewCategory } from "./category.ts";

interface Ports {
  categories: Categories;
  ids: IdAllocator;
}

export class CreateCategory {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(input: NewCategory): Promise<Category> {
    const { categories, ids } = this.#ports;
    const category: Category = { id: await ids.next("categories"), ...input };
    await categories.add(category);
    return category;
  }
}
