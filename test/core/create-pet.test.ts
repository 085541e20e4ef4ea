import { describe, expect, it } from "vitest";
import { GetInventoryItem } from "../../core/inventory/get-inventory-item.ts";
import { CreatePet } from "../../core/pets/create-pet.ts";
import { aWorld, givenCategory } from "./world.ts";

describe("CreatePet", () => {
  it("creates an available pet with increasing ids", async () => {
    const world = aWorld();
    const category = await givenCategory(world);
    const create = new CreatePet(world);

    const rex = await create.execute({ name: "Rex", categoryId: category.id });
    const max = await create.execute({ name: "Max", categoryId: category.id, status: "pending" });

    expect(rex).toEqual({ id: 1, name: "Rex", categoryId: category.id, status: "available" });
    expect(max).toEqual({ id: 2, name: "Max", categoryId: category.id, status: "pending" });
    expect(await world.pets.ofId(1)).toEqual(rex);
  });

  it("starts the pet with an inventory of 0", async () => {
    const world = aWorld();
    const category = await givenCategory(world);

    const pet = await new CreatePet(world).execute({ name: "Rex", categoryId: category.id });

    expect(await new GetInventoryItem(world).execute(pet.id)).toEqual({ petId: pet.id, quantity: 0, status: "available" });
  });

  it("refuses an unknown category with unknown_category and stores nothing", async () => {
    const world = aWorld();

    await expect(new CreatePet(world).execute({ name: "Rex", categoryId: 7 })).rejects.toMatchObject({
      code: "unknown_category",
    });
    expect(await world.pets.list({ limit: 100 })).toEqual([]);
  });
});
