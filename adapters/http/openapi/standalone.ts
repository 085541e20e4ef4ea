import { apiRoutes, type HttpAppDeps } from "../app.ts";
import { defaultGetPetDeprecation, type Deprecation } from "../routes/pet.routes.ts";
import type { OpenApiDocuments } from "./document.ts";
import { createApiReference } from "./reference.ts";

/** Stands in for the use cases and the clock: a documentation-only route table never runs a handler. */
const documentationOnly = new Proxy(
  {},
  {
    get(_target, name) {
      throw new Error(`The documentation-only route table has no ${String(name)}`);
    },
  },
);

/**
 * The documents without a running service: for the lint script, the typed client and the drift check.
 * The same builder and route table as the served ones; only the deprecation dates may differ from a deployment's.
 */
export const standaloneDocuments = (deprecation: Deprecation = defaultGetPetDeprecation): OpenApiDocuments => {
  const deps = { useCases: documentationOnly, clock: documentationOnly, deprecation } as Pick<HttpAppDeps, "useCases" | "clock" | "deprecation">;
  return createApiReference(apiRoutes(deps), { deprecation }).documents;
};
