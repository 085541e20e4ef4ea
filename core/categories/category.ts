export interface Category {
  id: number;
  name: string;
  description?: string | undefined;
}

export interface NewCategory {
  name: string;
  description?: string | undefined;
}

/** Names are unique regardless of case: "Dogs" and "dogs" are the same category name. */
export const normalizedCategoryName = (name: string): string => name.toLocaleLowerCase("en-US");
