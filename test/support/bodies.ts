// Whole response bodies as the API answers them: a test names the fields it cares about and the builder fills in
// every other at its default, so a new optional field changes one builder instead of every fixture.

export interface PetBody {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

export const petBody = (fields: Pick<PetBody, "id" | "name" | "categoryId"> & Partial<PetBody>): PetBody => ({
  status: "available",
  ...fields,
});
