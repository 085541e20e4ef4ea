export interface PageRequest {
  /** 1..100 */
  limit: number;
  /** Return only items past this id in the listing's order (greater ids, unless the query says otherwise). */
  after?: number | undefined;
}

export interface Page<T> {
  items: T[];
  /** The `after` value of the next page, when more items exist. */
  nextAfter: number | undefined;
  /** With a name order: the name key of the next page's cursor, beside `nextAfter`. */
  nextAfterName?: string | undefined;
}

/** Ports return up to `limit` items; use cases ask for one more to learn whether a next page exists. */
export const lookahead = (page: PageRequest): PageRequest => ({ limit: page.limit + 1, after: page.after });

export const toPage = <T>(fetched: T[], page: PageRequest, idOf: (item: T) => number): Page<T> => {
  const items = fetched.slice(0, page.limit);
  const last = items.at(-1);
  return { items, nextAfter: fetched.length > page.limit && last ? idOf(last) : undefined };
};
