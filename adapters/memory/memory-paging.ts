import type { PageRequest } from "../../core/shared/page.ts";

/** One page of stored items: those past `after` that match, in ascending id order, as copies. */
export const pageOf = <T extends { id: number }>(
  items: Iterable<T>,
  page: PageRequest,
  matches: (item: T) => boolean = () => true,
  copy: (item: T) => T = (item) => structuredClone(item),
): T[] =>
  [...items]
    .filter((item) => (page.after === undefined || item.id > page.after) && matches(item))
    .sort((a, b) => a.id - b.id)
    .slice(0, page.limit)
    .map(copy);
