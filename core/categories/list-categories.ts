import { lookahead, toPage, type Page, type PageRequest } from "../shared/page.ts";
import type { Categories } from "./categories.port.ts";
import type { Category } from "./category.ts";

export class ListCategories {
  readonly #categories: Categories;
  constructor(categories: Categories) {
    this.#categories = categories;
  }

  async execute(page: PageRequest): Promise<Page<Category>> {
    return toPage(await this.#categories.list(lookahead(page)), page, (c) => c.id);
  }
}
