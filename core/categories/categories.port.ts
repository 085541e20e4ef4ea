import type { PageRequest } from "../shared/page.ts";
import type { Category } from "./category.ts";

export interface Categories {
  ofId(id: number): Promise<Category | undefined>;
  /** Ascending id order, at most `limit` items. */
  list(page: PageRequest): Promise<Category[]>;
  /** Rejects with DomainError `category_name_taken` when another category has the name (case-insensitive). */
  add(category: Category): Promise<void>;
  /** False when the category does not exist; rejects with `category_name_taken` like `add`. */
  replace(category: Category): Promise<boolean>;
  remove(id: number): Promise<boolean>;
}
