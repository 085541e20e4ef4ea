import type { Categories } from "../../core/categories/categories.port.ts";
import { normalizedCategoryName, type Category } from "../../core/categories/category.ts";
import { DomainError } from "../../core/shared/domain-error.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import { pageOf } from "./memory-paging.ts";

/** The name check and the write happen in one synchronous step, so two racing adds never both pass it. */
export class MemoryCategories implements Categories {
  readonly #categories = new Map<number, Category>();

  async ofId(id: number): Promise<Category | undefined> {
    const category = this.#categories.get(id);
    return category && structuredClone(category);
  }

  async list(page: PageRequest): Promise<Category[]> {
    return pageOf(this.#categories.values(), page);
  }

  async add(category: Category): Promise<void> {
    this.#assertNameFree(category);
    this.#categories.set(category.id, structuredClone(category));
  }

  async replace(category: Category): Promise<boolean> {
    if (!this.#categories.has(category.id)) return false;
    this.#assertNameFree(category);
    this.#categories.set(category.id, structuredClone(category));
    return true;
  }

  async remove(id: number): Promise<boolean> {
    return this.#categories.delete(id);
  }

  #assertNameFree(category: Category): void {
    const name = normalizedCategoryName(category.name);
    const taken = [...this.#categories.values()].some(
      (other) => other.id !== category.id && normalizedCategoryName(other.name) === name,
    );
    if (taken) throw new DomainError("category_name_taken", `A category named "${category.name}" already exists`);
  }
}
