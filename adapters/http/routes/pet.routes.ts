import { presentPet } from "../presenters.ts";
import { entityTag } from "../conditional.ts";
import { created, paged, route, tagged, type Deprecation } from "../route.ts";
import type { Pet } from "../../../core/pets/pet.ts";
import { PetBody, PetIdParam, PetListQuery, PetListView, PetView } from "../schemas.ts";
import { petQueryOf } from "./pet-query.ts";

const versioned = { letter: "p", idParam: "petId" };
const taggedPet = (pet: Pet) => tagged(presentPet(pet), entityTag("p", pet.id, pet.revision));

/** PRODUCT.md §4's dates for GET /pets/{petId}; PETSTORE_GET_PET_DEPRECATED_AT and _SUNSET_AT override them. */
export const defaultGetPetDeprecation: Deprecation = {
  deprecatedAt: new Date("2026-09-01T00:00:00Z"),
  sunsetAt: new Date("2027-06-30T00:00:00Z"),
};

export const petRoutes = [
  route({
    method: "GET",
    path: "/pets",
    operationId: "listPets",
    tag: "Pets",
    summary: "List pets",
    description:
      "Pets in ascending id order (or as `sort` says), filtered by status, category, ids or the start of the name. `ids` replaces the deprecated `GET /pets/{petId}`.",
    access: "catalog:read",
    input: { query: PetListQuery },
    output: { status: 200, description: "A page of pets.", body: PetListView, headers: ["Link"] },
    handle: async ({ query }, _actor, { useCases }) =>
      paged(await useCases.listPets.execute(petQueryOf(query)), presentPet),
  }),
  route({
    method: "POST",
    path: "/pets",
    operationId: "createPet",
    tag: "Pets",
    summary: "Create a pet",
    description: "The status defaults to `available`. The pet gets an inventory item with quantity 0.",
    access: "catalog:write",
    idempotent: true,
    input: { body: PetBody },
    output: { status: 201, description: "The pet, created.", body: PetView, headers: ["Location"] },
    errors: ["unknown_category"],
    handle: async ({ body, attempt }, _actor, { useCases }) => {
      const pet = await useCases.createPet.execute(body, attempt);
      return created(presentPet(pet), `/pets/${pet.id}`);
    },
  }),
  route({
    method: "GET",
    path: "/pets/{petId}",
    operationId: "getPet",
    tag: "Pets",
    summary: "Get a pet",
    description:
      "Every answer after admission (the pet, 400, 404, 410) carries `Deprecation`, `Sunset` and the successor `Link`.",
    access: "catalog:read",
    input: { path: PetIdParam },
    output: { status: 200, description: "The pet.", body: PetView },
    deprecated: { successor: "GET /pets?ids={petId}" },
    versioned,
    handle: async ({ path }, _actor, { useCases }) => taggedPet(await useCases.getPet.execute(path.petId)),
  }),
  route({
    method: "PUT",
    path: "/pets/{petId}",
    operationId: "updatePet",
    tag: "Pets",
    summary: "Update a pet",
    description:
      "Replaces name, category and status. Staff may put an available pet on hold (`pending`) or release a hold; other status changes follow orders and stock.",
    access: "catalog:write",
    input: { path: PetIdParam, body: PetBody },
    output: { status: 200, description: "The pet, updated.", body: PetView },
    errors: ["invalid_transition", "unknown_category"],
    versioned,
    handle: async ({ path, body, expectedRevision }, _actor, { useCases }) =>
      taggedPet(await useCases.updatePet.execute(path.petId, body, expectedRevision)),
  }),
  route({
    method: "DELETE",
    path: "/pets/{petId}",
    operationId: "deletePet",
    tag: "Pets",
    summary: "Delete a pet",
    description:
      "Deletes the pet, its stock and its completed orders (no order ever names a deleted pet). A pet with open orders cannot be deleted.",
    access: "catalog:write",
    input: { path: PetIdParam },
    output: { status: 204, description: "Deleted." },
    errors: ["pet_has_open_orders"],
    versioned,
    handle: ({ path, expectedRevision }, _actor, { useCases }) =>
      useCases.deletePet.execute(path.petId, expectedRevision),
  }),
];
