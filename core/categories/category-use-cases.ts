import type { Pets } from "../pets/pets.port.ts";
import { DomainError, notFound } from "../shared/domain-error.ts";
import type { IdAllocator } from "../shared/id-allocator.port.ts";
import { lookahead, toPage, type Page, type PageRequest } from "../shared/page.ts";
import type { Categories } from "./categories.port.ts";
import type { Category, NewCategory } from "./category.ts";

export class ListCategories {
  readonly #categories: Categories;
  constructor(categories: Categories) {
    this.#categories = categories;
  }

  async execute(page: PageRequest): Promise<Page<Category>> {
    return toPage(await this.#categories.list(lookahead(page)), page, (c) => c.id);
  }
}

export class GetCategory {
  readonly #categories: Categories;
  constructor(categories: Categories) {
    this.#categories = categories;
  }

  async execute(id: number): Promise<Category> {
    const category = await this.#categories.ofId(id);
    if (!category) throw notFound("Category", id);
    return category;
  }
}

export class CreateCategory {
  readonly #ports: { categories: Categories; ids: IdAllocator };
  constructor(ports: { categories: Categories; ids: IdAllocator }) {
    this.#ports = ports;
  }

  async execute(input: NewCategory): Promise<Category> {
    const { categories, ids } = this.#ports;
    const category: Category = { id: await ids.next("categories"), ...input };
    await categories.add(category);
    return category;
  }
}

export class UpdateCategory {
  readonly #categories: Categories;
  constructor(categories: Categories) {
    this.#categories = categories;
  }

  async execute(id: number, input: NewCategory): Promise<Category> {
    const category: Category = { id, ...input };
    if (!(await this.#categories.replace(category))) throw notFound("Category", id);
    return category;
  }
}

export class DeleteCategory {
  readonly #ports: { categories: Categories; pets: Pets };
  constructor(ports: { categories: Categories; pets: Pets }) {
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
