import type { Clock } from "../../../core/shared/clock.port.ts";
import { isDomainError } from "../../../core/shared/domain-error.ts";
import { readJsonBody } from "../json-body.ts";
import { json, noContent } from "../json.ts";
import { HttpProblem } from "../problem.ts";
import { created, pageResponse, pathParams, queryOf, type Route } from "../route.ts";
import { idParam, NewPet, Pet, PetListQuery, Pets } from "../schemas.ts";
import type { UseCases } from "../use-cases.ts";
import { parseOrReject } from "../validation.ts";
import { IdempotencyHeaders, idempotencyErrors } from "../idempotency-docs.ts";

export interface Deprecation {
  deprecatedAt: Date;
  sunsetAt: Date;
}

/** PRODUCT.md §4's dates for GET /pets/{petId}; PETSTORE_GET_PET_DEPRECATED_AT and _SUNSET_AT override them. */
export const defaultGetPetDeprecation: Deprecation = {
  deprecatedAt: new Date("2026-09-01T00:00:00Z"),
  sunsetAt: new Date("2027-06-30T00:00:00Z"),
};

const petId = idParam("petId", "Identifier of the pet");
const read = { permission: "catalog:read" } as const;
const write = { permission: "catalog:write" } as const;

export const petRoutes = (uc: UseCases, clock: Clock, deprecation: Deprecation): Route[] => [
  {
    method: "GET",
    path: "/pets",
    operationId: "listPets",
    access: read,
    docs: {
      tag: "Pets",
      summary: "List pets",
      description: "Pets in ascending id order, filtered by status, category or ids. `ids` replaces the deprecated `GET /pets/{petId}`.",
      query: PetListQuery,
      success: { status: 200, description: "A page of pets.", body: Pets, headers: ["Link"] },
    },
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
    idempotent: true,
    access: write,
    docs: {
      tag: "Pets",
      summary: "Create a pet",
      description: "The status defaults to `available`. The pet gets an inventory item with quantity 0.",
      body: NewPet,
      success: { status: 201, description: "The pet, created.", body: Pet, headers: ["Location"] },
      headers: IdempotencyHeaders,
      errors: ["unknown_category", ...idempotencyErrors],
    },
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
    docs: {
      tag: "Pets",
      summary: "Get a pet",
      path: petId,
      success: { status: 200, description: "The pet.", body: Pet },
      errors: ["gone"],
      deprecated: { successor: "GET /pets?ids={petId}" },
    },
    handle: async (event) => {
      const headersFor = (id: number | string) => ({
        deprecation: `@${Math.floor(deprecation.deprecatedAt.getTime() / 1000)}`,
        sunset: deprecation.sunsetAt.toUTCString(),
        link: `</pets?ids=${id}>; rel="successor-version"`,
      });
      let id: number;
      try {
        ({ petId: id } = parseOrReject(petId, pathParams(event), "path"));
      } catch (error) {
        // An int64 beyond 2^53 names nothing (404); that answer says it is deprecated too, with the id as sent.
        throw isDomainError(error) ? new HttpProblem(error.code, error.message, { headers: headersFor(pathParams(event).petId!) }) : error;
      }
      const headers = headersFor(id);
      if (clock.now() >= deprecation.sunsetAt) {
        throw new HttpProblem("gone", "GET /pets/{petId} reached its sunset; use GET /pets?ids=…", { headers });
      }
      try {
        return json(await uc.getPet.execute(id), 200, headers);
      } catch (error) {
        // Every answer of the deprecated operation says so, its 404 included.
        throw isDomainError(error) ? new HttpProblem(error.code, error.message, { headers }) : error;
      }
    },
  },
  {
    method: "PUT",
    path: "/pets/:petId",
    operationId: "updatePet",
    access: write,
    docs: {
      tag: "Pets",
      summary: "Update a pet",
      description:
        "Replaces name, category and status. Staff may put an available pet on hold (`pending`) or release a hold; other status changes follow orders and stock.",
      path: petId,
      body: NewPet,
      success: { status: 200, description: "The pet, updated.", body: Pet },
      errors: ["invalid_transition", "unknown_category"],
    },
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
    docs: {
      tag: "Pets",
      summary: "Delete a pet",
      description: "Deletes the pet and its inventory item. A pet with open orders cannot be deleted.",
      path: petId,
      success: { status: 204, description: "Deleted." },
      errors: ["pet_has_open_orders"],
    },
    handle: async (event) => {
      const { petId: id } = parseOrReject(petId, pathParams(event), "path");
      await uc.deletePet.execute(id);
      return noContent();
    },
  },
];
