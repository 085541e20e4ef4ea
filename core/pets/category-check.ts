import type { Categories } from "../categories/categories.port.ts";

// Decides only after the pet's provisional write: docs/consistency.md#multi-step-writes-and-their-crash-points
export const categoryAcceptsPets = async (categories: Categories, categoryId: number): Promise<boolean> => {
  const category = await categories.ofId(categoryId);
  return category !== undefined && category.deletingSince === undefined;
};
