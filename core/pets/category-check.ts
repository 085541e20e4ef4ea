import type { Categories } from "../categories/categories.port.ts";

/**
 * Whether a pet may name the category: it exists and is not being deleted. Called only AFTER the pet's
 * provisional write (creating, movingTo), while a category's deletion writes `deleting` BEFORE it looks for pets:
 * each side writes its flag, then reads the other's, so at least one of two racing requests sees the other.
 */
export const categoryAcceptsPets = async (categories: Categories, categoryId: number): Promise<boolean> => {
  const category = await categories.ofId(categoryId);
  return category !== undefined && category.deletingSince === undefined;
};
