import { notedId, type IdempotentAttempt } from "../idempotency/run-idempotently.ts";
import { isDomainError } from "../shared/domain-error.ts";
import type { IdAllocator } from "../shared/id-allocator.port.ts";
import type { Categories } from "./categories.port.ts";
import { categoryOf, type Category, type CategoryRecord, type NewCategory } from "./category.ts";

interface Ports {
  categories: Categories;
  ids: IdAllocator;
}

// Crash points: docs/consistency.md#multi-step-writes-and-their-crash-points ("create category").
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
    const category: CategoryRecord = {
      id: await ids.next("categories"),
      ...input,
      revision: 1,
      deletingSince: undefined,
    };
    await attempt?.note({ categoryId: category.id });
    try {
      await categories.add(category);
    } catch (error) {
      const late =
        isDomainError(error) && error.code === "category_name_taken" ? await this.#visible(noted) : undefined;
      if (late) return late;
      throw error;
    }
    return categoryOf(category);
  }

  async #visible(id: number | undefined): Promise<Category | undefined> {
    const found = id === undefined ? undefined : await this.#ports.categories.ofId(id);
    return found && found.deletingSince === undefined ? categoryOf(found) : undefined;
  }
}
