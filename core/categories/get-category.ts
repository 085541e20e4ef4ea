import { notFound } from "../shared/domain-error.ts";
import type { Categories } from "./categories.port.ts";
import type { Category } from "./category.ts";

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
