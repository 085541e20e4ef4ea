import type { Categories } from "../../core/categories/categories.port.ts";
import { normalizedCategoryName, type CategoryRecord, type NewCategory } from "../../core/categories/category.ts";
import { DomainError } from "../../core/shared/domain-error.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import { OrderedMap } from "./memory-ordered-map.ts";

const copyCategory = (c: CategoryRecord): CategoryRecord => ({
  ...c,
  deletingSince: c.deletingSince && new Date(c.deletingSince),
});

/**
 * The name check and the write happen in one synchronous step, so two racing adds never both pass it. The
 * categories are kept in ascending id and by normalized name, so neither a page nor the name check scans them all.
 */
export class MemoryCategories implements Categories {
  readonly #categories = new Map<number, CategoryRecord>();
  readonly #all = new OrderedMap<number>();
  readonly #idOfName = new Map<string, number>();

  async ofId(id: number): Promise<CategoryRecord | undefined> {
    const category = this.#categories.get(id);
    return category && copyCategory(category);
  }

  async list(page: PageRequest): Promise<CategoryRecord[]> {
    return this.#page(page, () => true);
  }

  async add(category: CategoryRecord): Promise<void> {
    this.#assertNameFree(category.id, category.name);
    this.#set(copyCategory(category));
  }

  async replace(id: number, input: NewCategory, expectedRevision?: number): Promise<CategoryRecord | undefined> {
    const current = this.#categories.get(id);
    if (!current || (expectedRevision !== undefined && current.revision !== expectedRevision)) return undefined;
    this.#assertNameFree(id, input.name);
    const { description: _, ...rest } = current;
    const next: CategoryRecord = {
      ...rest,
      name: input.name,
      ...(input.description !== undefined && { description: input.description }),
      revision: current.revision + 1,
    };
    this.#set(next);
    return copyCategory(next);
  }

  async beginDelete(id: number, since: Date, expectedRevision?: number): Promise<boolean> {
    const current = this.#categories.get(id);
    if (!current || current.deletingSince || (expectedRevision !== undefined && current.revision !== expectedRevision))
      return false;
    this.#set({ ...current, deletingSince: new Date(since), revision: current.revision + 1 });
    return true;
  }

  async abortDelete(id: number, since: Date): Promise<boolean> {
    const current = this.#categories.get(id);
    if (current?.deletingSince?.getTime() !== since.getTime()) return false;
    this.#set({ ...current, deletingSince: undefined, revision: current.revision + 1 });
    return true;
  }

  async removeDeleting(id: number, since: Date): Promise<boolean> {
    const current = this.#categories.get(id);
    if (current?.deletingSince?.getTime() !== since.getTime()) return false;
    this.#categories.delete(id);
    this.#all.delete(id);
    this.#idOfName.delete(normalizedCategoryName(current.name));
    return true;
  }

  async deletingBefore(cutoff: Date, page: PageRequest): Promise<CategoryRecord[]> {
    return this.#page(page, (c) => c.deletingSince !== undefined && c.deletingSince < cutoff);
  }

  #assertNameFree(id: number, name: string): void {
    const owner = this.#idOfName.get(normalizedCategoryName(name));
    if (owner !== undefined && owner !== id)
      throw new DomainError("category_name_taken", `A category named "${name}" already exists`);
  }

  /** Adds or replaces the category (its name checked free before). */
  #set(category: CategoryRecord): void {
    const previous = this.#categories.get(category.id);
    if (previous) this.#idOfName.delete(normalizedCategoryName(previous.name));
    else this.#all.set(category.id, category.id);
    this.#idOfName.set(normalizedCategoryName(category.name), category.id);
    this.#categories.set(category.id, category);
  }

  #page(page: PageRequest, matches: (c: CategoryRecord) => boolean): CategoryRecord[] {
    const found: CategoryRecord[] = [];
    for (const id of this.#all.valuesAfter(page.after)) {
      if (found.length >= page.limit) break;
      const category = this.#categories.get(id);
      if (category && matches(category)) found.push(copyCategory(category));
    }
    return found;
  }
}
