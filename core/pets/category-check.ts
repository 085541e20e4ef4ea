import type { Categories } from "../categories/categories.port.ts";

/**
 * Whether a pet may name the category. Called only after the pet's provisional write, while a category deletion
 * writes `deleting` before it looks for pets: of two racing requests, at least one sees the other.
 */
export const categoryAcceptsPets = async (categories: Categories, categoryId: number): Promise<boolean> => {
  const category = await categories.ofId(categoryId);
  return category !== undefined && category.deletingSince === undefined;
};
