export interface PageRequest {
  /** 1..100 */
  limit: number;
  /** Items past this id in the listing's order. */
  after?: number | undefined;
}

export interface Page<T> {
  items: T[];
  nextAfter: number | undefined;
  /** With sort=name: the cursor's name key. */
  nextAfterName?: string | undefined;
}

/** One more than asked tells whether a next page exists. */
export const lookahead = (page: PageRequest): PageRequest => ({ limit: page.limit + 1, after: page.after });

export const toPage = <T>(fetched: T[], page: PageRequest, idOf: (item: T) => number): Page<T> => {
  const items = fetched.slice(0, page.limit);
  const last = items.at(-1);
  return { items, nextAfter: fetched.length > page.limit && last ? idOf(last) : undefined };
};
