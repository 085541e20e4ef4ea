import type { PageRequest } from "../shared/page.ts";
import type { CategoryRecord, NewCategory } from "./category.ts";

export interface Categories {
  ofId(id: number): Promise<CategoryRecord | undefined>;
  list(page: PageRequest): Promise<CategoryRecord[]>;
  /** Rejects `category_name_taken` when another category has the name in any case. */
  add(category: CategoryRecord): Promise<void>;
  /** Undefined when missing or at another revision; rejects a taken name. */
  replace(id: number, input: NewCategory, expectedRevision?: number): Promise<CategoryRecord | undefined>;
  /** Only an active category. */
  beginDelete(id: number, since: Date, expectedRevision?: number): Promise<boolean>;
  // Only the deletion begun at `since`.
  abortDelete(id: number, since: Date): Promise<boolean>;
  removeDeleting(id: number, since: Date): Promise<boolean>;
  deletingBefore(cutoff: Date, page: PageRequest): Promise<CategoryRecord[]>;
}
