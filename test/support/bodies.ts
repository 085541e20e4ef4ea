import { expect } from "vitest";
import type { components as publicApi } from "./petstore-api.d.ts";

// Builders typed by the generated OpenAPI types, so a new optional field breaks no fixture: requests (`newPet`) are
// valid by default; `expectedPet` asserts only the fields a test names; `petBody` is a whole answer (named fields plus
// defaults) for the one test per resource that pins it, beside the field list in openapi-document.test.ts.

type Schemas = publicApi["schemas"];
export type PetBody = Schemas["Pet"];
export type OrderBody = Schemas["Order"];
export type CategoryBody = Schemas["Category"];

// Lets a test pass a status it holds as a string (it.each rows) without a cast; the service judges the value.
type Loose<T> = { [K in keyof T]?: NonNullable<T[K]> extends string ? T[K] | (string & {}) : T[K] };

export const newPet = (fields: Loose<Schemas["NewPet"]> = {}) => ({ name: "Rex", categoryId: 1, ...fields });

export const newCategory = (fields: Loose<Schemas["NewCategory"]> = {}) => ({ name: "Dogs", ...fields });

export const newOrder = (fields: Loose<Schemas["NewOrder"]> = {}) => ({ petId: 1, quantity: 1, ...fields });

export const petBody = (fields: Pick<PetBody, "id" | "name" | "categoryId"> & Loose<PetBody>): PetBody =>
  ({ status: "available", ...fields }) as PetBody;

export const categoryBody = (fields: Pick<CategoryBody, "id" | "name"> & Partial<CategoryBody>): CategoryBody => ({
  ...fields,
});

export const orderBody = (fields: Required<Pick<OrderBody, "id" | "petId" | "quantity">> & Partial<OrderBody>) => ({
  complete: false,
  ...fields,
});

// expect.objectContaining types as any: these keep the named fields typed against the schema.
export const expectedPet = (fields: Loose<PetBody>): PetBody => expect.objectContaining(fields);

export const expectedCategory = (fields: Partial<CategoryBody>): CategoryBody => expect.objectContaining(fields);

export const expectedOrder = (fields: Partial<OrderBody>): OrderBody => expect.objectContaining(fields);
