import { notedId, type IdempotentAttempt } from "../idempotency/run-idempotently.ts";
import { isDomainError } from "../shared/domain-error.ts";
import type { IdAllocator } from "../shared/id-allocator.port.ts";
import type { Categories } from "./categories.port.ts";
import { categoryOf, type Category, type CategoryRecord, type NewCategory } from "./category.ts";

interface Ports {
  categories: Categories;
  ids: IdAllocator;
}

/**
 * create category: 1 allocate the id                        crash → nothing written (the id is skipped)
 *                  2 insert it (the unique name decides)     crash after → done
 *
 * Under an Idempotency-Key (`attempt`) the id is written down in the key's record after step 1, and an attempt that
 * took over a lost one's record looks under the lost one's id first:
 *   the category is there (the lost attempt died after step 2)   → it is the answer, nothing written
 *   nothing there (died before step 2, or it was deleted since)  → created afresh, under a new id
 * A lost attempt that was only slow and inserts after the look takes the name first: the retry's insert is refused
 * as a duplicate name, finds the lost attempt's category under the noted id and answers it. So a key creates at most
 * one category, and its retries answer that category rather than `category_name_taken`.
 */
export class CreateCategory {
  readonly #ports: Ports;
  constructor(ports: Ports) {
    this.#ports = ports;
  }

  async execute(input: NewCategory, attempt?: IdempotentAttempt): Promise<Category> {
    const { categories, ids } = this.#ports;
    const noted = notedId(attempt, "categoryId");
    const earlier = await this.#visible(noted);
    if (earlier) return earlier;
    const category: CategoryRecord = { id: await ids.next("categories"), ...input, revision: 1, deletingSince: undefined };
    await attempt?.note({ categoryId: category.id });
    try {
      await categories.add(category);
    } catch (error) {
      const late = isDomainError(error) && error.code === "category_name_taken" ? await this.#visible(noted) : undefined;
      if (late) return late;
      throw error;
    }
    return categoryOf(category);
  }

  /** The category under `id`, unless there is none or it is being deleted. */
  async #visible(id: number | undefined): Promise<Category | undefined> {
    const found = id === undefined ? undefined : await this.#ports.categories.ofId(id);
    return found && found.deletingSince === undefined ? categoryOf(found) : undefined;
  }
}
