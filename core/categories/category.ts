export interface Category {
  id: number;
  name: string;
  description?: string | undefined;
  /** Increases with every write to the category. */
  revision: number;
}

/** A category being deleted carries `deletingSince` until the deletion is decided. */
export interface CategoryRecord extends Category {
  deletingSince: Date | undefined;
}

export interface NewCategory {
  name: string;
  description?: string | undefined;
}

/** Names are unique regardless of case: "Dogs" and "dogs" are the same category name. */
export const normalizedCategoryName = (name: string): string => name.toLocaleLowerCase("en-US");

export const categoryOf = (record: CategoryRecord): Category => ({
  id: record.id,
  name: record.name,
  ...(record.description !== undefined && { description: record.description }),
  revision: record.revision,
});
