import { notFound, revisionMismatch } from "../shared/domain-error.ts";
import type { Categories } from "./categories.port.ts";
import { categoryOf, type Category, type NewCategory } from "./category.ts";

export class UpdateCategory {
  readonly #categories: Categories;
  constructor(categories: Categories) {
    this.#categories = categories;
  }

  async execute(id: number, input: NewCategory, expectedRevision?: number): Promise<Category> {
    const replaced = await this.#categories.replace(id, input, expectedRevision);
    if (replaced) return categoryOf(replaced);
    if (expectedRevision !== undefined && (await this.#categories.ofId(id))) throw revisionMismatch("Category", id);
    throw notFound("Category", id);
  }
}
