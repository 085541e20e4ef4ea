import { routeTable } from "../route-table.ts";
import type { Deprecation } from "../route.ts";
import { defaultGetPetDeprecation } from "../routes/pet.routes.ts";
import { buildOpenApiDocuments, type OpenApiDocuments } from "./document.ts";

/**
 * The documents without a running service (for the lint script, the typed client and the drift check): the same
 * route table and builder as the served ones; only the deprecation dates may differ from a deployment's.
 */
export const standaloneDocuments = (deprecation: Deprecation = defaultGetPetDeprecation): OpenApiDocuments =>
  buildOpenApiDocuments(routeTable, { deprecation });
