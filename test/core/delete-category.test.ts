import { describe, expect, it } from "vitest";
import { DeleteCategory } from "../../core/categories/delete-category.ts";
import { DeletePet } from "../../core/pets/delete-pet.ts";
import { aWorld, givenCategory, givenPet } from "./world.ts";

describe("DeleteCategory", () => {
  it("refuses a category with pets with category_in_use", async () => {
    const world = aWorld();
    const pet = await givenPet(world);

    await expect(new DeleteCategory(world).execute(pet.categoryId)).rejects.toMatchObject({ code: "category_in_use" });
    expect(await world.categories.ofId(pet.categoryId)).toBeDefined();
  });

  it("deletes a category once its pets are gone", async () => {
    const world = aWorld();
    const pet = await givenPet(world);
    await new DeletePet(world).execute(pet.id);

    await new DeleteCategory(world).execute(pet.categoryId);

    expect(await world.categories.ofId(pet.categoryId)).toBeUndefined();
  });

  it("deletes an empty category, then answers not_found", async () => {
    const world = aWorld();
    const category = await givenCategory(world);
    const remove = new DeleteCategory(world);

    await remove.execute(category.id);

    await expect(remove.execute(category.id)).rejects.toMatchObject({ code: "not_found" });
  });
});
