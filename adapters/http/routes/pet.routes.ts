import type { Clock } from "../../../core/shared/clock.port.ts";
import { readJsonBody } from "../json-body.ts";
import { json, noContent } from "../json.ts";
import { HttpProblem } from "../problem.ts";
import { created, pageResponse, pathParams, queryOf, type Route } from "../route.ts";
import { idParam, NewPet, PetListQuery } from "../schemas.ts";
import type { UseCases } from "../use-cases.ts";
import { parseOrReject } from "../validation.ts";

export interface Deprecation {
  deprecatedAt: Date;
  sunsetAt: Date;
}

const petId = idParam("petId");
const read = { permission: "catalog:read" } as const;
const write = { permission: "catalog:write" } as const;

export const petRoutes = (uc: UseCases, clock: Clock, deprecation: Deprecation): Route[] => [
  {
    method: "GET",
    path: "/pets",
    operationId: "listPets",
    access: read,
    handle: async (event) => {
      const q = parseOrReject(PetListQuery, queryOf(event), "query");
      const page = await uc.listPets.execute({
        limit: q.limit ?? 20,
        after: q.after,
        statuses: q.status,
        categoryId: q.categoryId,
        ids: q.ids,
      });
      return pageResponse(event, page, (pet) => pet);
    },
  },
  {
    method: "POST",
    path: "/pets",
    operationId: "createPet",
    access: write,
    handle: async (event) => {
      const pet = await uc.createPet.execute(await readJsonBody(event, NewPet));
      return created(pet, `/pets/${pet.id}`);
    },
  },
  {
    method: "GET",
    path: "/pets/:petId",
    operationId: "getPet",
    access: read,
    handle: async (event) => {
      const { petId: id } = parseOrReject(petId, pathParams(event), "path");
      const headers = {
        deprecation: `@${Math.floor(deprecation.deprecatedAt.getTime() / 1000)}`,
        sunset: deprecation.sunsetAt.toUTCString(),
        link: `</pets?ids=${id}>; rel="successor-version"`,
      };
      if (clock.now() >= deprecation.sunsetAt) {
        throw new HttpProblem("gone", "GET /pets/{petId} reached its sunset; use GET /pets?ids=…", { headers });
      }
      return json(await uc.getPet.execute(id), 200, headers);
    },
  },
  {
    method: "PUT",
    path: "/pets/:petId",
    operationId: "updatePet",
    access: write,
    handle: async (event) => {
      const { petId: id } = parseOrReject(petId, pathParams(event), "path");
      return json(await uc.updatePet.execute(id, await readJsonBody(event, NewPet)));
    },
  },
  {
    method: "DELETE",
    path: "/pets/:petId",
    operationId: "deletePet",
    access: write,
    handle: async (event) => {
      const { petId: id } = parseOrReject(petId, pathParams(event), "path");
      await uc.deletePet.execute(id);
      return noContent();
    },
  },
];
