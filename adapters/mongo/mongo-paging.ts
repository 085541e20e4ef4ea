import type { Collection, Document, Filter } from "mongodb";
import type { PageRequest } from "../../core/shared/page.ts";

/**
 * One page of documents with numeric `_id`s: those past `after` (and among `ids`, when given) that match `filter`,
 * in ascending id order (descending: those below `after`, highest first). The `_id` range is what the
 * `{field: 1, _id: 1}` indexes serve, either way. `hint`: the index the filter implies, named to the planner.
 */
export interface PageOptions {
  ids?: readonly number[] | undefined;
  projection?: Document | undefined;
  descending?: boolean | undefined;
  hint?: string | undefined;
}

export const findPage = <D extends { _id: number } & Document>(
  collection: Collection<D>,
  filter: Filter<D>,
  page: PageRequest,
  { ids, projection, descending = false, hint }: PageOptions = {},
): Promise<D[]> => {
  const idRange = {
    ...(ids !== undefined && { $in: [...ids] }),
    ...(page.after !== undefined && (descending ? { $lt: page.after } : { $gt: page.after })),
  };
  const query = Object.keys(idRange).length > 0 ? { ...filter, _id: idRange } : filter;
  return collection
    .find(query as Filter<D>, { ...(projection && { projection }), ...(hint !== undefined && { hint }) })
    .sort({ _id: descending ? -1 : 1 })
    .limit(page.limit)
    .toArray() as Promise<D[]>;
};
