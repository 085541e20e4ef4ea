import { notFound } from "../shared/domain-error.ts";
import type { Categories } from "./categories.port.ts";
import type { Category, NewCategory } from "./category.ts";

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
