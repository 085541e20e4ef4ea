export interface Category {
  id: number;
  name: string;
  description?: string | undefined;
  revision: number;
}

export interface CategoryRecord extends Category {
  deletingSince: Date | undefined;
}

export interface NewCategory {
  name: string;
  description?: string | undefined;
}

/** Names are unique regardless of case. */
export const normalizedCategoryName = (name: string): string => name.toLocaleLowerCase("en-US");

export const categoryOf = (record: CategoryRecord): Category => ({
  id: record.id,
  name: record.name,
  ...(record.description !== undefined && { description: record.description }),
  revision: record.revision,
});
