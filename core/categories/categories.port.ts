import type { PageRequest } from "../shared/page.ts";
import type { CategoryRecord, NewCategory } from "./category.ts";

export interface Categories {
  ofId(id: number): Promise<CategoryRecord | undefined>;
  /** Ascending id order, at most `limit` items. */
  list(page: PageRequest): Promise<CategoryRecord[]>;
  /** Rejects with DomainError `category_name_taken` when another category has the name (case-insensitive). */
  add(category: CategoryRecord): Promise<void>;
  /**
   * Replaces name and description while the category exists (at `expectedRevision` when given); rejects a taken name.
   */
  replace(id: number, input: NewCategory, expectedRevision?: number): Promise<CategoryRecord | undefined>;
  /** Active → deleting (revision + 1), while it has `expectedRevision` when given. */
  beginDelete(id: number, since: Date, expectedRevision?: number): Promise<boolean>;
  /** Deleting since `since` → active again (revision + 1). */
  abortDelete(id: number, since: Date): Promise<boolean>;
  /** Deletes the category only while it is deleting since `since`. */
  removeDeleting(id: number, since: Date): Promise<boolean>;
  /** Categories deleting since before `cutoff`, ascending id. */
  deletingBefore(cutoff: Date, page: PageRequest): Promise<CategoryRecord[]>;
}
