import type { PetQuery } from "../../../core/pets/pets.port.ts";
import { HttpProblem } from "../problem.ts";
import type { PetListQuery } from "../schemas.ts";
import type { z } from "zod";

/** A name-ordered page continues after a name and an id, given together (as the `Link` header does); other orders take no name. */
const checkNameCursor = (sort: string | undefined, after: number | undefined, afterName: string | undefined): void => {
  const problem = (message: string) =>
    new HttpProblem("validation_failed", "The request query is not valid", {
      details: [{ path: "query.afterName", message }],
    });
  if (afterName !== undefined && sort !== "name") throw problem("`afterName` goes with `sort=name` only");
  if (sort === "name" && (after === undefined) !== (afterName === undefined))
    throw problem("With `sort=name`, `after` and `afterName` go together");
};

/** The listing a pet query asks for (`GET /pets`, and `GET /store/inventory` without `ids`). */
export const petQueryOf = (query: Partial<z.output<typeof PetListQuery>> & { limit: number }): PetQuery => {
  checkNameCursor(query.sort, query.after, query.afterName);
  return {
    limit: query.limit,
    after: query.after,
    statuses: query.status,
    categoryId: query.categoryId,
    ids: query.ids,
    namePrefix: query.name,
    sort: query.sort,
    afterName: query.afterName,
  };
};
