import type { Categories } from "../../core/categories/categories.port.ts";
import { normalizedCategoryName, type CategoryRecord, type NewCategory } from "../../core/categories/category.ts";
import { DomainError } from "../../core/shared/domain-error.ts";
import type { PageRequest } from "../../core/shared/page.ts";
import { pageOf } from "./memory-paging.ts";

const copyCategory = (c: CategoryRecord): CategoryRecord => ({ ...c, deletingSince: c.deletingSince && new Date(c.deletingSince) });

/** The name check and the write happen in one synchronous step, so two racing adds never both pass it. */
export class MemoryCategories implements Categories {
  readonly #categories = new Map<number, CategoryRecord>();

  async ofId(id: number): Promise<CategoryRecord | undefined> {
    const category = this.#categories.get(id);
    return category && copyCategory(category);
  }

  async list(page: PageRequest): Promise<CategoryRecord[]> {
    return pageOf(this.#categories.values(), page, undefined, copyCategory);
  }

  async add(category: CategoryRecord): Promise<void> {
    this.#assertNameFree(category.id, category.name);
    this.#categories.set(category.id, copyCategory(category));
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
    this.#categories.set(id, next);
    return copyCategory(next);
  }

  async beginDelete(id: number, since: Date, expectedRevision?: number): Promise<boolean> {
    const current = this.#categories.get(id);
    if (!current || current.deletingSince || (expectedRevision !== undefined && current.revision !== expectedRevision)) return false;
    this.#categories.set(id, { ...current, deletingSince: new Date(since), revision: current.revision + 1 });
    return true;
  }

  async abortDelete(id: number, since: Date): Promise<boolean> {
    const current = this.#categories.get(id);
    if (current?.deletingSince?.getTime() !== since.getTime()) return false;
    this.#categories.set(id, { ...current, deletingSince: undefined, revision: current.revision + 1 });
    return true;
  }

  async removeDeleting(id: number, since: Date): Promise<boolean> {
    if (this.#categories.get(id)?.deletingSince?.getTime() !== since.getTime()) return false;
    return this.#categories.delete(id);
  }

  async deletingBefore(cutoff: Date, page: PageRequest): Promise<CategoryRecord[]> {
    return pageOf(this.#categories.values(), page, (c) => c.deletingSince !== undefined && c.deletingSince < cutoff, copyCategory);
  }

  #assertNameFree(id: number, name: string): void {
    const key = normalizedCategoryName(name);
    const taken = [...this.#categories.values()].some((other) => other.id !== id && normalizedCategoryName(other.name) === key);
    if (taken) throw new DomainError("category_name_taken", `A category named "${name}" already exists`);
  }
}
